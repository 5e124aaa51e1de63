package org.gexj;

import org.gexj.spi.BootstrapProvider;
import org.gexj.spi.JobHealth;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.function.ObjIntConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Which bootstrap a process joins through: the environment's choice, highest priority first. gex-core's tests have
 * tcp, singleton and {@link UnavailableBootstrapProvider} (test resources), and no pmix.
 */
class BootstrapsTest {
    private static Config env(String... kv) {
        final Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return Config.of(m);
    }

    @Test
    void providersAreFoundAndAskedHighestPriorityFirst() {
        assertEquals(java.util.List.of("tcp", "unavailable", "singleton"),
            Bootstraps.all().stream().map(BootstrapProvider::name).toList());
        assertEquals("singleton", Bootstraps.select(env()).name());
        assertEquals("tcp", Bootstraps.select(env("GEX_BOOTSTRAP", "127.0.0.1:1", "GEX_SIZE", "2")).name());
        // gexrun's ranks inside a resource manager's job: gexrun's variable wins over the unavailable one's
        assertEquals("tcp", Bootstraps.select(env("GEX_BOOTSTRAP", "127.0.0.1:1", UnavailableBootstrapProvider.ASK,
            "1")).name());
    }

    @Test
    void aRequestedProviderThatCannotRunFailsInitSayingWhyRatherThanFallingBack() {
        final GexException e = assertThrows(GexException.class,
            () -> Bootstraps.select(env(UnavailableBootstrapProvider.ASK, "1")));
        assertEquals("this process's environment asks for bootstrap unavailable, which is unavailable here: "
            + UnavailableBootstrapProvider.WHY, e.getMessage());
        assertSame(UnavailableBootstrapProvider.CAUSE, e.getCause());
    }

    @Test
    void severalRanksWithoutALauncherAreRefusedAsBefore() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Gex.init("TEST", env("GEX_SIZE", "2", "GEX_RANK", "1", "GEX_JOB_ID", "bootstraps-test-size")));
        assertEquals("GEX_SIZE=2 needs GEX_BOOTSTRAP (start the job with gexrun)", e.getMessage());
    }

    /** Without gex-bootstrap-pmix, a rank of mpirun's would silently be a job of its own: init refuses. */
    @Test
    void aPmixRankWithoutThePmixModuleIsToldWhatIsMissing() {
        final GexException e = assertThrows(GexException.class, () -> Gex.init("TEST",
            env("PMIX_NAMESPACE", "ns", "PMIX_RANK", "3", "GEX_JOB_ID", "bootstraps-test-pmix")));
        assertEquals("this rank runs under a PMIx server (PMIX_NAMESPACE=ns PMIX_RANK=3), but no bootstrap for it is"
            + " on the class path: add gex-bootstrap-pmix (gex-all has it)", e.getMessage());
    }

    /** Requested by {@link #ASK}; never available. */
    public static final class UnavailableBootstrapProvider implements BootstrapProvider {
        static final String ASK = "GEX_TEST_UNAVAILABLE_BOOTSTRAP";
        static final String WHY = "libnothing.so.0: cannot open shared object file";
        static final Throwable CAUSE = new UnsatisfiedLinkError(WHY);

        @Override
        public String name() {
            return "unavailable";
        }

        @Override
        public int priority() {
            return 100;
        }

        @Override
        public boolean requested(Config config) {
            return config.get(ASK, null) != null;
        }

        @Override
        public boolean isAvailable() {
            return false;
        }

        @Override
        public Throwable unavailabilityCause() {
            return CAUSE;
        }

        @Override
        public Joined join(Config config, JobHealth health, ObjIntConsumer<String> joinOnce) {
            throw new AssertionError("an unavailable bootstrap is never joined");
        }
    }
}
