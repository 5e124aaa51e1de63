package org.gexj.launch;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The environment gexrun gives its ranks for native libraries' signal handlers: libjsig preloaded where the JDK has
 * it, once, before the user's libraries.
 */
class GexRunSignalEnvironmentTest {

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
