package org.gexj.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ofi conduit on libfabric's shm provider, between processes: testam, testqueue and the AM Long flood, as
 * OfiTestamIT and OfiLongFloodIT run them on tcp. Apart from those while shm fails at start-up: every rank binds
 * its shm endpoint to the same name (GEX_OFI_NODE's 127.0.0.1), so the second rank's fi_enable fails with EBUSY,
 * or, when it takes the name over, a rank dies of SIGSEGV in libfabric. And what a killed rank leaves in /dev/shm.
 */
class OfiShmIT {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void testamRunsEverySection() throws Exception {
        OfiTestamIT.testam(OfiRuns.SHM);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void testqueueRunsEveryTable() throws Exception {
        OfiTestamIT.testqueue(OfiRuns.SHM);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyLongArrivesOnceWholeAndInPlace() throws Exception {
        OfiLongFloodIT.flood(OfiRuns.SHM, 2, 100);
    }

    /**
     * A rank killed by kill -9 cannot unlink its 16 MiB shm region ({@code /dev/shm/<pid>:*}); the launcher removes
     * it, and those of the ranks it had to kill, when the job ends, and says so.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theRegionsOfKilledRanksAreRemovedWhenTheJobEnds() throws Exception {
        final Jobs job = Jobs.start(OfiRuns.env(OfiRuns.SHM), "-n", "2", "--conduit", "ofi", "--",
            StayAlive.class.getName(), "poll");
        try {
            final long[] pids = job.readyPids(2);
            assertTrue(!regions(pids[1]).isEmpty(), "rank 1 has no region in /dev/shm:\n" + job.output());
            new ProcessBuilder("kill", "-9", Long.toString(pids[1])).start().waitFor();
            OfiRuns.await(job, System.nanoTime(), 30);
            for (long pid : pids) {
                assertEquals(List.of(), regions(pid), "rank pid " + pid + "\n" + job.output());
            }
            assertTrue(job.cleanupReports().stream().anyMatch(l -> l.contains("/dev/shm/" + pids[1] + ":")),
                "the launcher reports the killed rank's region:\n" + job.output());
        } finally {
            if (job.process.isAlive()) {
                OfiRuns.destroy(job);
            }
        }
    }

    private static List<String> regions(long pid) throws IOException {
        final List<String> found = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(Path.of("/dev/shm"), pid + ":*")) {
            s.forEach(p -> found.add(p.toString()));
        }
        return found;
    }
}
