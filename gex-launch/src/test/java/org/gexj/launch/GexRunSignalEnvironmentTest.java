package org.gexj.launch;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The environment gexrun gives its ranks for native libraries: libjsig preloaded where the JDK has it, once, before the
 * user's libraries (signal handlers); glibc's {@code rep movsb} threshold above any copy, unless the user set it.
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

    @Test
    void repMovsbIsAvoidedBesideTheUsersTunablesUnlessTheyNameItsThreshold() {
        final Map<String, String> none = new HashMap<>();
        GexRun.avoidRepMovsb(none);
        assertEquals("glibc.cpu.x86_rep_movsb_threshold=1099511627776", none.get("GLIBC_TUNABLES"));
        GexRun.avoidRepMovsb(none);
        assertEquals("glibc.cpu.x86_rep_movsb_threshold=1099511627776", none.get("GLIBC_TUNABLES"));

        final Map<String, String> other = new HashMap<>(Map.of("GLIBC_TUNABLES", "glibc.malloc.arena_max=2"));
        GexRun.avoidRepMovsb(other);
        assertEquals("glibc.malloc.arena_max=2:glibc.cpu.x86_rep_movsb_threshold=1099511627776",
            other.get("GLIBC_TUNABLES"));

        final Map<String, String> blank = new HashMap<>(Map.of("GLIBC_TUNABLES", ""));
        GexRun.avoidRepMovsb(blank);
        assertEquals("glibc.cpu.x86_rep_movsb_threshold=1099511627776", blank.get("GLIBC_TUNABLES"));

        final String users = "glibc.cpu.x86_rep_movsb_threshold=2112:glibc.malloc.arena_max=2";
        final Map<String, String> own = new HashMap<>(Map.of("GLIBC_TUNABLES", users));
        GexRun.avoidRepMovsb(own);
        assertEquals(users, own.get("GLIBC_TUNABLES"));
    }
}
