package org.gexj.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kill -9 of one rank: the launcher and every other rank exit non-zero within 10 s, naming the dead rank, and
 * /dev/shm keeps nothing of the job — whether the survivors are polling or computing without calling GEX/J, and
 * whether the rank dies after every file was unlinked or while files still had names. The launcher removes what a
 * job left and says so; its report tells a conduit leak (a survivor's file) from what only the dead rank left.
 */
class KillRankIT {
    private static final Map<String, String> CLASSES =
        Map.of("GEX_CLASSPATH", Jobs.ROOT.resolve("gex-dist/target/test-classes").toString());

    @ParameterizedTest
    @ValueSource(strings = {"poll", "compute"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void killNineOfARankEndsTheJobQuicklyAndCleanly(String mode) throws Exception {
        final List<String> before = Jobs.shmFiles();
        final Jobs job = Jobs.start(CLASSES, "-n", "3", "--", StayAlive.class.getName(), mode);
        final long[] pids = job.readyPids(3);
        final long killedAt = System.nanoTime();
        new ProcessBuilder("kill", "-9", Long.toString(pids[1])).start().waitFor();
        assertTrue(job.process.waitFor(10, TimeUnit.SECONDS), "job still running 10 s after kill -9:\n" + job.output());
        final double seconds = (System.nanoTime() - killedAt) / 1e9;
        assertNotEquals(0, job.process.exitValue(), job.output());
        assertLauncherEndedTheJobForRank1(job);
        // each survivor reports it: its failure watch ("gex: rank r: aborting: rank 1 failed...") or, when it was
        // polling, the PeerFailedException that ended its main thread
        assertTrue(job.lines.stream().filter(l -> l.contains("rank 1 failed")).count() >= 2,
            "both survivors name the dead rank:\n" + job.output());
        for (long pid : new long[] {pids[0], pids[2]}) {
            final var handle = ProcessHandle.of(pid);
            if (handle.isPresent()) {
                handle.get().onExit().get(5, TimeUnit.SECONDS);
            }
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
                "rank pid " + pid + " survived");
        }
        // every rank had unlinked its files before the kill: the launcher had nothing to remove
        assertEquals(List.of(), job.cleanupReports(), job.output());
        assertEquals(before, Jobs.shmFiles(), "files left in /dev/shm");
        System.out.printf("job ended %.2f s after kill -9 (%s)%n", seconds, mode);
    }

    /**
     * Rank 2 joins late, so ranks 0 and 1 have created their files (rank 0: {@code -ctl}, {@code -am-0},
     * {@code -reg-0}; rank 1: {@code -am-1}, {@code -reg-1}) and wait in the bootstrap allgather, where nobody can
     * unlink yet; then rank 1 is killed. Only the launcher can remove rank 1's files. Rank 0 must unlink its own on the
     * failure path, so the launcher's report names exactly rank 1's files; rank 2, still asleep, is terminated by the
     * launcher before it creates any.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void killNineWhileFilesAreNamedLeavesOnlyTheDeadRanksFilesToTheLauncher() throws Exception {
        final Jobs job = Jobs.start(CLASSES, "-n", "3", "--", JoinLate.class.getName(), "2", "60000");
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String jobId = null;
        long pid1 = 0;
        while (jobId == null
            || !Jobs.shmFiles(jobId).containsAll(List.of(jobId + "-ctl", jobId + "-am-0", jobId + "-am-1",
                jobId + "-reg-0", jobId + "-reg-1"))) {
            assertTrue(System.nanoTime() < deadline, "ranks 0 and 1 did not create their files: " + job.output());
            assertTrue(job.process.isAlive(), "launcher ended early: " + job.output());
            for (String line : new ArrayList<>(job.lines)) {
                final String[] w = line.split(" ");
                if (w.length == 4 && w[0].equals("started") && w[1].equals("1")) {
                    pid1 = Long.parseLong(w[2]);
                    jobId = w[3];
                }
            }
            Thread.sleep(20);
        }
        final List<String> named = Jobs.shmFiles(jobId);
        assertEquals(List.of(jobId + "-am-0", jobId + "-am-1", jobId + "-ctl", jobId + "-reg-0", jobId + "-reg-1"),
            named,
            "inside the window: rank 2 has not joined, nobody has unlinked");
        new ProcessBuilder("kill", "-9", Long.toString(pid1)).start().waitFor();
        assertTrue(job.process.waitFor(10, TimeUnit.SECONDS), "job still running 10 s after kill -9:\n" + job.output());
        assertNotEquals(0, job.process.exitValue(), job.output());
        assertLauncherEndedTheJobForRank1(job);
        assertTrue(job.lines.stream().anyMatch(l -> l.contains("rank 1 failed")), "rank 0 names the dead rank:\n"
            + job.output());
        assertEquals(List.of("gexrun: removed 2 leftover file(s) of job " + jobId + ": " + jobId + "-am-1 " + jobId
                + "-reg-1"),
            job.cleanupReports(), "the launcher removed rank 1's files only; a survivor's file would be a conduit"
                + " leak:\n" + job.output());
        assertEquals(List.of(), Jobs.shmFiles(jobId), "files of the job left in /dev/shm");
    }

    /**
     * The launcher names rank 1 as the cause, from its exit status or, when the rendezvous saw its connection close
     * first, from that; either way its exit code says signal 9 (128 + 9) and the other ranks' are non-zero.
     */
    private static void assertLauncherEndedTheJobForRank1(Jobs job) {
        assertTrue(job.lines.stream().anyMatch(l -> l.equals("gexrun: rank 1 was killed by signal 9; ending the job")
                || l.startsWith("gexrun: rank 1 failed: its bootstrap connection ended without goodbye")),
            "the launcher names the dead rank:\n" + job.output());
        final Matcher codes = Pattern.compile("gexrun: exit codes by rank: 0=(\\d+) 1=(\\d+) 2=(\\d+)")
            .matcher(job.output());
        assertTrue(codes.find(), job.output());
        assertEquals("137", codes.group(2), "rank 1 exit code: killed by signal 9");
        assertNotEquals("0", codes.group(1), "rank 0 exit code");
        assertNotEquals("0", codes.group(3), "rank 2 exit code");
    }
}
