package org.gexj.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * GEX/J jobs under Open MPI's mpirun: bin/gexrank ranks find each other through mpirun's PMIx server (PmixBootstrap),
 * on smp and on udp; a rank's failure ends the job through mpirun.
 */
class MpirunIT {
    private static void assertRanksOk(ManagedJob job, int ranks) {
        for (int r = 0; r < ranks; r++) {
            final String prefix = "rank " + r + " of " + ranks + ": OK";
            assertTrue(job.lines.stream().anyMatch(l -> l.startsWith(prefix)), "no '" + prefix + "':\n" + job.output());
        }
        assertTrue(job.lines.stream().noneMatch(l -> l.contains("FAIL")), job.output());
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void twoAndFourRanksExchangeAmsPutsAndBarriersOnSmp() throws Exception {
        for (int ranks : new int[] {2, 4}) {
            final List<String> before = Jobs.shmFiles("pmix-");
            final ManagedJob job = ManagedJob.mpirun(ranks, Map.of("GEX_CONDUIT", "smp"), PmixRanks.class.getName(),
                Integer.toString(ranks), "50");
            assertTrue(job.process.waitFor(120, TimeUnit.SECONDS), "mpirun did not finish:\n" + job.output());
            assertEquals(0, job.process.exitValue(), job.output());
            assertRanksOk(job, ranks);
            assertEquals(before, Jobs.shmFiles("pmix-"), "the smp conduit's files of a PMIx job were left behind");
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void fourRanksOnUdp() throws Exception {
        final ManagedJob job = ManagedJob.mpirun(4, Map.of("GEX_CONDUIT", "udp"), PmixRanks.class.getName(), "4", "20");
        assertTrue(job.process.waitFor(120, TimeUnit.SECONDS), "mpirun did not finish:\n" + job.output());
        assertEquals(0, job.process.exitValue(), job.output());
        assertRanksOk(job, 4);
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void testamRunsUnderMpirunOnSmpAndUdp() throws Exception {
        for (String conduit : List.of("smp", "udp")) {
            final ManagedJob job = ManagedJob.mpirun(2, Map.of("GEX_CONDUIT", conduit), "testam", "100", "1024");
            assertTrue(job.process.waitFor(140, TimeUnit.SECONDS), conduit + ": testam did not finish:\n"
                + job.output());
            assertEquals(0, job.process.exitValue(), conduit + ":\n" + job.output());
            for (char section = 'A'; section <= 'K'; section++) {
                final String prefix = section + ":";
                assertTrue(job.lines.stream().anyMatch(l -> l.startsWith(prefix)),
                    conduit + ": section " + section + " missing:\n" + job.output());
            }
            assertTrue(job.lines.contains("node 0/2 done.") && job.lines.contains("node 1/2 done."),
                conduit + ":\n" + job.output());
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aRankThatThrowsEndsTheWholeJobNamingIt() throws Exception {
        final ManagedJob job = ManagedJob.mpirun(3, Map.of(), PmixRanks.class.getName(), "3", "1", "fail", "1");
        assertTrue(job.process.waitFor(90, TimeUnit.SECONDS), "the job hangs after rank 1 failed:\n" + job.output());
        assertNotEquals(0, job.process.exitValue(), job.output());
        assertTrue(job.output().contains("rank 1 fails on purpose"), job.output());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void oneRanksExitEndsEveryRankAndMpirunWithItsCode() throws Exception {
        for (int code : new int[] {3, 0}) {
            final ManagedJob job =
                ManagedJob.mpirun(3, Map.of(), ExitWith.class.getName(), Integer.toString(code), "1");
            assertTrue(job.process.waitFor(90, TimeUnit.SECONDS), "the job hangs after rank 1's exit(" + code + "):\n"
                + job.output());
            assertEquals(code, job.process.exitValue(), job.output());
            assertTrue(job.lines.contains("rank 1 exits with " + code), job.output());
            assertTrue(job.lines.contains("gex: rank 1: ending the job: rank 1 called exit(" + code + ")"),
                job.output());
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aRankThatNeverJoinsEndsTheJobAfterTheBootstrapTimeout() throws Exception {
        // rank 1 sleeps 60 s before Gex.init; the others' first fence times out after 5 s (PMIX_TIMEOUT)
        final long start = System.nanoTime();
        final ManagedJob job = ManagedJob.mpirun(3, Map.of("GEX_BOOTSTRAP_TIMEOUT", "5"), PmixRanks.class.getName(),
            "3", "1", "late", "1", "60");
        assertTrue(job.process.waitFor(50, TimeUnit.SECONDS), "the job waits for rank 1:\n" + job.output());
        assertNotEquals(0, job.process.exitValue(), job.output());
        assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) < 45, job.output());
        assertTrue(job.lines.stream().anyMatch(l -> l.matches("gex: rank [02]: ending the job: rank [02] waited 5 s"
            + " \\(GEX_BOOTSTRAP_TIMEOUT\\) in PMIx_Fence \\(gexj\\.ag\\.0\\) for the other ranks.*")), job.output());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void gexrankKeepsMemcpyFromRepMovsbBesideTheUsersTunables() throws Exception {
        final ManagedJob job = ManagedJob.mpirun(2, Map.of("GLIBC_TUNABLES", "glibc.malloc.arena_max=2"),
            TunablesProbe.class.getName());
        assertTrue(job.process.waitFor(90, TimeUnit.SECONDS), "mpirun did not finish:\n" + job.output());
        assertEquals(0, job.process.exitValue(), job.output());
        for (int r = 0; r < 2; r++) {
            assertTrue(job.lines.contains("tunables " + r
                + " glibc.malloc.arena_max=2:glibc.cpu.x86_rep_movsb_threshold=1099511627776"), job.output());
        }
    }
}
