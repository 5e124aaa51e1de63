package org.gexj.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Client.exit(code) is gasnet_exit: one rank's call ends every rank and gexrun with that code. */
class ExitIT {
    private static final Map<String, String> CLASSES =
        Map.of("GEX_CLASSPATH", Jobs.ROOT.resolve("gex-dist/target/test-classes").toString());

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void oneRanksExitEndsTheWholeJobWithItsCode() throws Exception {
        final List<String> before = Jobs.shmFiles();
        final Jobs job = Jobs.start(CLASSES, "-n", "3", "--", ExitWith.class.getName(), "3", "1");
        assertTrue(job.process.waitFor(60, TimeUnit.SECONDS), "job still running:\n" + job.output());
        assertEquals(3, job.process.exitValue(), job.output());
        assertTrue(job.lines.contains("rank 1 exits with 3"), job.output());
        assertTrue(job.lines.contains("gexrun: exit codes by rank: 0=3 1=3 2=3"),
            "every rank ended with 3:\n" + job.output());
        assertEquals(List.of(), job.cleanupReports(), "the ranks unlinked their own files:\n" + job.output());
        assertEquals(before, Jobs.shmFiles(), "files left in /dev/shm");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyRankCallingExitZeroEndsTheJobCleanly() throws Exception {
        final Jobs job = Jobs.start(CLASSES, "-n", "2", "--", ExitWith.class.getName(), "0", "all");
        assertTrue(job.process.waitFor(60, TimeUnit.SECONDS), "job still running:\n" + job.output());
        assertEquals(0, job.process.exitValue(), job.output());
        assertFalse(job.output().contains("gexrun: rank"), "no failure reported:\n" + job.output());
        assertEquals(List.of(), job.cleanupReports(), "the ranks unlinked their own files:\n" + job.output());
    }
}
