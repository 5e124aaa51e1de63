package org.gexj.dist;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** What the ofi ITs share: the environment choosing a libfabric provider, and a wait that leaves no rank behind. */
final class OfiRuns {
    static final String TCP = "tcp;ofi_rxm";
    static final String SHM = "shm";
    static final String UDP = "udp;ofi_rxd";

    private OfiRuns() {
    }

    /** The environment of a job on {@code provider}, with the test classes on the ranks' class path. */
    static Map<String, String> env(String provider) {
        final Map<String, String> env = new HashMap<>();
        env.put("GEX_CLASSPATH", Jobs.ROOT.resolve("gex-dist/target/test-classes").toString());
        env.put("GEX_OFI_PROVIDER", provider);
        return env;
    }

    /**
     * Waits for the job and returns the seconds it took from {@code startNanos}; a job still running after
     * {@code seconds} is killed with its ranks (a hung rank would otherwise outlive the test and load the 2 cores of
     * the next one) and fails the test with its output. The same when the test's own timeout interrupts the wait.
     */
    static double await(Jobs job, long startNanos, long seconds) throws InterruptedException {
        try {
            if (!job.process.waitFor(seconds, TimeUnit.SECONDS)) {
                destroy(job);
                fail("job still running after " + seconds + " s, killed:\n" + job.output());
            }
        } catch (InterruptedException e) {
            destroy(job);
            throw e;
        }
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /** Kills the launcher's ranks, then the launcher. */
    static void destroy(Jobs job) throws InterruptedException {
        job.process.descendants().forEach(ProcessHandle::destroyForcibly);
        job.process.destroyForcibly();
        assertTrue(job.process.waitFor(10, TimeUnit.SECONDS), "launcher survived kill -9");
    }

    /** The conduit's start-up line, which names the provider it opened. */
    static String conduitLine(int ranks, String provider) {
        return "gex: ofi conduit rank 0 of " + ranks + ": provider " + provider + ",";
    }
}
