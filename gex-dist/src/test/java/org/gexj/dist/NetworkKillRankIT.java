package org.gexj.dist;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
 * kill -9 of one rank of a job on a network conduit (ofi on tcp;ofi_rxm, udp): the launcher and the other ranks exit
 * non-zero within 10 s, naming the dead rank, whether the survivors poll, compute without calling GEX/J, or wait in a
 * barrier the dead rank never enters. Unlike smp, the dead rank's peers also hold connections to it (libfabric's) or
 * unacknowledged datagrams for it (udp's), which must not keep them waiting.
 */
class NetworkKillRankIT {
    @ParameterizedTest(name = "{0}, survivors {1}")
    @CsvSource({"ofi, poll", "ofi, compute", "ofi, barrier", "udp, poll", "udp, compute", "udp, barrier"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void killNineOfARankEndsTheJobWithinTenSeconds(String conduit, String mode) throws Exception {
        final Map<String, String> env = conduit.equals("ofi") ? OfiRuns.env(OfiRuns.TCP)
            : Map.of("GEX_CLASSPATH", Jobs.ROOT.resolve("gex-dist/target/test-classes").toString());
        final String conduitLine =
            conduit.equals("ofi") ? OfiRuns.conduitLine(3, OfiRuns.TCP) : "gex: udp conduit over";
        final Jobs job = mode.equals("barrier")
            ? Jobs.start(env, "-n", "3", "--conduit", conduit, "--", BarrierWait.class.getName(), "1")
            : Jobs.start(env, "-n", "3", "--conduit", conduit, "--", StayAlive.class.getName(), mode);
        try {
            final long[] pids = job.readyPids(3);
            final long killedAt = System.nanoTime();
            new ProcessBuilder("kill", "-9", Long.toString(pids[1])).start().waitFor();
            assertTrue(job.process.waitFor(10, TimeUnit.SECONDS), "job still running 10 s after kill -9 (" + mode
                + "):\n" + job.output());
            final double seconds = (System.nanoTime() - killedAt) / 1e9;
            assertNotEquals(0, job.process.exitValue(), job.output());
            assertTrue(job.lines.stream().anyMatch(l -> l.startsWith(conduitLine)), job.output());
            assertTrue(job.lines.stream().anyMatch(
                l -> l.equals("gexrun: rank 1 was killed by signal 9; ending the job")
                    || l.startsWith("gexrun: rank 1 failed: its bootstrap connection ended without goodbye")),
                "the launcher names the dead rank:\n" + job.output());
            final Matcher codes = Pattern.compile("gexrun: exit codes by rank: 0=(\\d+) 1=(\\d+) 2=(\\d+)")
                .matcher(job.output());
            assertTrue(codes.find(), job.output());
            assertEquals("137", codes.group(2), "rank 1 exit code: killed by signal 9");
            assertNotEquals("0", codes.group(1), "rank 0 exit code");
            assertNotEquals("0", codes.group(3), "rank 2 exit code");
            // each survivor reports it: its failure watch or the PeerFailedException that ended its main thread
            assertTrue(job.lines.stream().filter(l -> l.contains("rank 1 failed")).count() >= 2,
                "both survivors name the dead rank:\n" + job.output());
            assertFalse(job.lines.stream().anyMatch(l -> l.startsWith("rank ") && l.contains("passed a barrier")),
                "a barrier completed without rank 1:\n" + job.output());
            for (long pid : new long[] {pids[0], pids[2]}) {
                final var handle = ProcessHandle.of(pid);
                if (handle.isPresent()) {
                    handle.get().onExit().get(5, TimeUnit.SECONDS);
                }
                assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "rank pid " + pid
                    + " survived");
            }
            assertEquals(List.of(), job.cleanupReports(), job.output());
            System.out.printf("%s job ended %.2f s after kill -9 (%s)%n", conduit, seconds, mode);
        } finally {
            if (job.process.isAlive()) {
                OfiRuns.destroy(job);
            }
        }
    }
}
