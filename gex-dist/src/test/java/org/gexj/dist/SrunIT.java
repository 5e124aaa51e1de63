package org.gexj.dist;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * GEX/J jobs under Slurm: {@code srun --mpi=pmix -n N bin/gexrank ...} on a one-node cluster of this host (munge,
 * slurmctld and slurmd started by tools/slurm/single-node.sh, which needs root and Debian's slurm-wlm, munge and
 * libpmix-dev: ./gexj.sh installs them). Same programs and results as {@link MpirunIT}.
 */
class SrunIT {
    private static final java.nio.file.Path CLUSTER = Jobs.ROOT.resolve("tools/slurm/single-node.sh");

    private static int cluster(String action) throws Exception {
        final Process p = new ProcessBuilder(CLUSTER.toString(), action).inheritIO().start();
        assertTrue(p.waitFor(90, TimeUnit.SECONDS), CLUSTER + " " + action + " did not finish");
        return p.exitValue();
    }

    @BeforeAll
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    static void startTheCluster() throws Exception {
        assertEquals(0, cluster("start"), "the one-node Slurm cluster did not start (see /var/tmp/gexj-slurm)");
    }

    @AfterAll
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    static void stopTheCluster() throws Exception {
        assertEquals(0, cluster("stop"));
    }

    private static void assertRanksOk(ManagedJob job, int ranks) {
        for (int r = 0; r < ranks; r++) {
            final String prefix = "rank " + r + " of " + ranks + ": OK";
            assertTrue(job.lines.stream().anyMatch(l -> l.startsWith(prefix)), "no '" + prefix + "':\n" + job.output());
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void twoAndFourRanksOnSmpAndFourOnUdp() throws Exception {
        for (List<Object> c : List.of(List.<Object>of(2, "smp"), List.<Object>of(4, "smp"),
            List.<Object>of(4, "udp"))) {
            final int ranks = (Integer) c.get(0);
            final ManagedJob job = ManagedJob.srun(ranks, Map.of("GEX_CONDUIT", (String) c.get(1)),
                PmixRanks.class.getName(), Integer.toString(ranks), "20");
            assertTrue(job.process.waitFor(120, TimeUnit.SECONDS), "srun did not finish:\n" + job.output());
            assertEquals(0, job.process.exitValue(), c + ":\n" + job.output());
            assertRanksOk(job, ranks);
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void testamRunsUnderSrun() throws Exception {
        final ManagedJob job = ManagedJob.srun(2, Map.of("GEX_CONDUIT", "smp"), "testam", "100", "1024");
        assertTrue(job.process.waitFor(150, TimeUnit.SECONDS), "testam did not finish:\n" + job.output());
        assertEquals(0, job.process.exitValue(), job.output());
        for (char section = 'A'; section <= 'K'; section++) {
            final String prefix = section + ":";
            assertTrue(job.lines.stream().anyMatch(l -> l.startsWith(prefix)), "section " + section + " missing:\n"
                + job.output());
        }
        assertTrue(job.lines.contains("node 0/2 done.") && job.lines.contains("node 1/2 done."), job.output());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aRankThatThrowsEndsTheStepNamingItsTask() throws Exception {
        final ManagedJob job = ManagedJob.srun(3, Map.of(), PmixRanks.class.getName(), "3", "1", "fail", "1");
        assertTrue(job.process.waitFor(90, TimeUnit.SECONDS), "the step hangs after rank 1 failed:\n" + job.output());
        assertNotEquals(0, job.process.exitValue(), job.output());
        assertTrue(job.output().contains("rank 1 fails on purpose"), job.output());
        assertTrue(job.output().contains("task 1: Exited with exit code 1"), job.output());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void oneRanksExitEndsTheStepWithItsCode() throws Exception {
        final ManagedJob job = ManagedJob.srun(3, Map.of(), ExitWith.class.getName(), "3", "1");
        assertTrue(job.process.waitFor(90, TimeUnit.SECONDS), "the step hangs after rank 1's exit:\n" + job.output());
        assertEquals(3, job.process.exitValue(), job.output());
        assertTrue(job.lines.contains("gex: rank 1: ending the job: rank 1 called exit(3)"), job.output());
    }
}
