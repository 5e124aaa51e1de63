package org.gexj.launch;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The environment gexrun gives its ranks for native libraries' signal handlers: libjsig preloaded where the JDK has
 * it, and libinfinipath's crash handlers off unless the user says otherwise (conduit-ofi's
 * {@code OfiRankCrashReportTest} crashes a rank to show why).
 */
class GexRunSignalEnvironmentTest {

    @Test
    void infinipathsHandlersAreOffUnlessTheUserSetsThem() {
        final Map<String, String> env = new HashMap<>();
        GexRun.preloadSignalChaining(env, "/nonexistent/jdk/bin/java");
        assertEquals("1", env.get(GexRun.NO_INFINIPATH_HANDLERS));
        final Map<String, String> mine = new HashMap<>(Map.of(GexRun.NO_INFINIPATH_HANDLERS, "0"));
        GexRun.preloadSignalChaining(mine, "/nonexistent/jdk/bin/java");
        assertEquals("0", mine.get(GexRun.NO_INFINIPATH_HANDLERS));
    }

    @Test
    void libjsigIsPreloadedBeforeTheUsersLibrariesOnce() {
        final String java = System.getProperty("java.home") + "/bin/java";
        final String jsig = System.getProperty("java.home") + "/lib/libjsig.so";
        final Map<String, String> env = new HashMap<>(Map.of("LD_PRELOAD", "/x/libmine.so"));
        GexRun.preloadSignalChaining(env, java);
        assertEquals(jsig + ":/x/libmine.so", env.get("LD_PRELOAD"));
        GexRun.preloadSignalChaining(env, java);
        assertEquals(jsig + ":/x/libmine.so", env.get("LD_PRELOAD"));
    }
}
