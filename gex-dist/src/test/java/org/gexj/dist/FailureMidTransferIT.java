package org.gexj.dist;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Failures in the middle of a transfer, under gexrun with real processes and sockets ({@link FailureFlood}): kill -9
 * of rank 1 of 3 during a flood of 1 MiB AM Longs (each protocol), of 1 MiB puts or gets, or of barriers, on udp and
 * on ofi (tcp;ofi_rxm, shm). Each survivor must end within 10 s of the kill with an error naming rank 1, gexrun must
 * exit non-zero naming it, and nothing of the job may stay in /dev/shm. Prints the time from the kill to the end of
 * each survivor's process. (On shm a survivor sometimes cannot report: its thread spins inside libfabric on a lock in
 * the dead rank's region that the rank held when it died; its failure watch names the dead rank and gexrun ends it.)
 * Then a rank that stops calling GEX/J for longer than its conduit's peer timeout while its peer floods it, and
 * resumes: its peer declares it failed after the timeout, and when it resumes its next call
 * throws {@link org.gexj.PeerFailedException}.
 */
class FailureMidTransferIT {
    private static final long BOUND_SECONDS = 10;

    @ParameterizedTest(name = "{0} {1} {2} {3}")
    @CsvSource({
        "udp, , long, ", "udp, , put, ", "udp, , get, ", "udp, , barrier, ",
        "ofi, tcp;ofi_rxm, long, putsyncsend", "ofi, tcp;ofi_rxm, long, reassembly", "ofi, tcp;ofi_rxm, put, ",
        "ofi, tcp;ofi_rxm, get, ", "ofi, tcp;ofi_rxm, barrier, ",
        "ofi, shm, long, putsyncsend", "ofi, shm, long, reassembly", "ofi, shm, put, ", "ofi, shm, get, "})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void killNineOfARankInTheMiddleOfAFloodEndsEverySurvivorWithinTenSeconds(String conduit, String provider,
                                                                            String mode, String protocol)
        throws Exception {
        final Map<String, String> env = env(provider);
        final List<String> args = new ArrayList<>(List.of("-n", "3", "--conduit", conduit));
        if (protocol != null) {
            args.addAll(List.of("-E", "GEX_AMLONG_PROTOCOL=" + protocol));
        }
        args.addAll(List.of("--", FailureFlood.class.getName(), mode));
        final Jobs job = Jobs.start(env, args.toArray(String[]::new));
        final String what = conduit + (provider == null ? "" : " " + provider) + " " + mode
            + (protocol == null ? "" : " (" + protocol + ")");
        try {
            final long[] pids = job.readyPids(3);
            awaitLines(job, "flooding ", 3);
            final long killedAt = System.nanoTime();
            ProcessHandle.of(pids[1]).ifPresent(ProcessHandle::destroyForcibly); // SIGKILL
            final double[] ended = awaitExits(job, pids, killedAt, new int[] {0, 2});
            final double jobSeconds = OfiRuns.await(job, killedAt, 30);
            System.out.printf("%s: kill -9 of rank 1; rank 0 ended %.2f s after, rank 2 %.2f s, gexrun %.2f s%n",
                what, ended[0], ended[2], jobSeconds);
            for (int r : new int[] {0, 2}) {
                assertTrue(ended[r] < BOUND_SECONDS,
                    what + ": rank " + r + " ended " + ended[r] + " s after the kill:\n" + job.output());
                // its own error, or its failure watch's when libfabric holds its thread (shm: a spin lock in the dead
                // rank's region that the rank held when it was killed; gexrun ends such a rank)
                assertTrue(job.lines.stream().anyMatch(l -> (l.startsWith("rank " + r + " ended at ")
                        || l.startsWith("gex: rank " + r + ": aborting: ")) && l.contains("rank 1 failed")),
                    what + ": rank " + r + "'s error names rank 1:\n" + job.output());
            }
            assertNotEquals(0, job.process.exitValue(), job.output());
            assertTrue(job.lines.stream().anyMatch(
                l -> l.equals("gexrun: rank 1 was killed by signal 9; ending the job")
                    || l.startsWith("gexrun: rank 1 failed: its bootstrap connection ended without goodbye")),
                what + ": gexrun names the dead rank:\n" + job.output());
            assertTrue(job.output().contains("gexrun: exit codes by rank: 0=") && job.output().contains(" 1=137 "),
                job.output());
            assertNothingInDevShm(pids, job);
        } finally {
            if (job.process.isAlive()) {
                OfiRuns.destroy(job);
            }
        }
    }

    /**
     * Rank 1 stops calling GEX/J for 4 s while rank 0 floods it with Longs, with a peer timeout of 2 s: rank 0 declares
     * it failed after the timeout, naming it and the setting, and the job fails; rank 1, given a failure grace longer
     * than its pause, resumes to find its next call throwing PeerFailedException. Nothing completes for it after the
     * pause, and the job ends non-zero.
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"udp, , GEX_UDP_PEER_TIMEOUT", "ofi, tcp;ofi_rxm, GEX_OFI_TIMEOUT"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aRankThatStopsPollingLongerThanThePeerTimeoutIsDeclaredFailedAndFindsTheJobFailedWhenItResumes(
        String conduit, String provider, String timeoutVariable) throws Exception {
        final Jobs job = Jobs.start(env(provider), "-n", "2", "--conduit", conduit, "-E", timeoutVariable + "=2",
            "-E", "GEX_FAILURE_GRACE_MS=5000", "--", FailureFlood.class.getName(), "long", "1", "4000");
        try {
            job.readyPids(2);
            awaitLines(job, "rank 1 pauses", 1);
            final long pausedAt = System.nanoTime();
            final double seconds = OfiRuns.await(job, pausedAt, 30);
            System.out.printf("%s: rank 1 paused 4 s with %s=2; the job ended %.2f s after the pause began%n",
                conduit, timeoutVariable, seconds);
            final String out = job.output();
            assertNotEquals(0, job.process.exitValue(), out);
            assertTrue(job.lines.stream().anyMatch(l -> l.startsWith("rank 0 ended at ") && l.contains("rank 1 failed")
                && l.contains("for 2 s") && l.contains(timeoutVariable)), "rank 0 declared rank 1 failed:\n" + out);
            final int resumed = indexOf(job.lines, "rank 1 resumes");
            assertTrue(resumed >= 0, "rank 1 resumed within its failure grace:\n" + out);
            final int ended = indexOf(job.lines, "rank 1 ended at ");
            assertTrue(ended > resumed && job.lines.get(ended).contains("PeerFailedException"),
                "rank 1's first call after its pause threw PeerFailedException:\n" + out);
            assertTrue(seconds < 4 + BOUND_SECONDS, out);
        } finally {
            if (job.process.isAlive()) {
                OfiRuns.destroy(job);
            }
        }
    }

    static Map<String, String> env(String provider) {
        final Map<String, String> env = new HashMap<>();
        env.put("GEX_CLASSPATH", Jobs.ROOT.resolve("gex-dist/target/test-classes").toString());
        if (provider != null) {
            env.put("GEX_OFI_PROVIDER", provider);
        }
        return env;
    }

    private static int indexOf(List<String> lines, String prefix) {
        final List<String> copy = new ArrayList<>(lines);
        for (int i = 0; i < copy.size(); i++) {
            if (copy.get(i).startsWith(prefix)) {
                return i;
            }
        }
        return -1;
    }

    /** Waits up to 60 s for {@code n} lines starting with {@code prefix}. */
    static void awaitLines(Jobs job, String prefix, int n) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (job.lines.stream().filter(l -> l.startsWith(prefix)).count() < n) {
            assertTrue(System.nanoTime() < deadline, "no " + n + " lines '" + prefix + "...':\n" + job.output());
            assertTrue(job.process.isAlive(), "launcher ended early:\n" + job.output());
            Thread.sleep(20);
        }
    }

    /**
     * Watches the ranks {@code survivors} until each has exited (at most BOUND_SECONDS + 20 s), and returns by rank
     * the seconds from {@code fromNanos} to its exit.
     */
    static double[] awaitExits(Jobs job, long[] pids, long fromNanos, int[] survivors) throws InterruptedException {
        final double[] ended = new double[pids.length];
        java.util.Arrays.fill(ended, -1);
        int left = survivors.length;
        final long deadline = fromNanos + TimeUnit.SECONDS.toNanos(BOUND_SECONDS + 20);
        while (left > 0) {
            for (int r : survivors) {
                if (ended[r] < 0 && !ProcessHandle.of(pids[r]).map(ProcessHandle::isAlive).orElse(false)) {
                    ended[r] = (System.nanoTime() - fromNanos) / 1e9;
                    left--;
                }
            }
            if (System.nanoTime() > deadline) {
                OfiRuns.destroy(job);
                fail("survivors still running " + (BOUND_SECONDS + 20) + " s after the failure:\n" + job.output());
            }
            Thread.sleep(10);
        }
        return ended;
    }

    /** No rank's ofi shm region ({@code /dev/shm/PID:...}) or other file of the job is left. */
    static void assertNothingInDevShm(long[] pids, Jobs job) throws IOException {
        for (long pid : pids) {
            assertEquals(List.of(), Jobs.shmFiles(pid + ":"), "rank pid " + pid + "'s files in /dev/shm:\n"
                + job.output());
        }
        for (String report : job.cleanupReports()) {
            final String id = report.replaceAll(".* of job (\\S+):.*", "$1");
            assertEquals(List.of(), Jobs.shmFiles(id), "files of job " + id + " in /dev/shm");
        }
    }
}
