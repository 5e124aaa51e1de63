package org.gexj.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The launcher end to end: real processes, the smp conduit, GASNet's programs. */
class GexRunIT {
    private static final Pattern TESTAM_LINE = Pattern.compile(
        "^[A-K]: +(\\d+ )?AM(Short|Medium|Long) +.+: +\\d+\\.\\d{3} sec +\\d+\\.\\d{3} us( +\\d+\\.\\d{3} MB/s)?$");

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void testamRunsBetweenTwoRanksOnSmp() throws Exception {
        final List<String> before = Jobs.shmFiles();
        final Jobs job = Jobs.start(Map.of(), "-n", "2", "testam", "200", "4096");
        assertTrue(job.process.waitFor(150, TimeUnit.SECONDS), "testam did not finish: " + job.output());
        assertEquals(0, job.process.exitValue(), job.output());
        final long results = job.lines.stream().filter(l -> TESTAM_LINE.matcher(l).matches()).count();
        // A: 4 lines; B-K: sizes 0, 1, 2, ..., 4096 (14 each)
        assertEquals(4 + 10 * 14, results, "result lines for sections A-K:\n" + job.output());
        for (char section = 'A'; section <= 'K'; section++) {
            final String prefix = section + ":";
            assertTrue(job.lines.stream().anyMatch(l -> l.startsWith(prefix)), "section " + section + " missing");
        }
        assertTrue(job.lines.contains("node 0/2 done.") && job.lines.contains("node 1/2 done."), job.output());
        assertEquals(List.of(), job.cleanupReports(), "the ranks unlinked their own files:\n" + job.output());
        assertEquals(before, Jobs.shmFiles(), "files left in /dev/shm");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void badRankCountIsRejectedWithTheRange() throws Exception {
        final Jobs job = Jobs.start(Map.of(), "-n", "0", "testam");
        assertTrue(job.process.waitFor(30, TimeUnit.SECONDS));
        assertTrue(job.process.exitValue() != 0);
        assertTrue(job.output().contains("0"), job.output());
    }
}
