package org.gexj.dist;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rank that calls barrier() once more than its peer ({@link ExtraBarrier}), under gexrun: its close can never
 * complete, and on every conduit it must end as on smp, with "rank 1 has closed its client" about a second (the
 * core's grace for a closed peer's last messages) after its extra barrier. On ofi it took 21 s (tcp;ofi_rxm) and
 * 11 s (shm) from the extra barrier to the end of the job: the peer's close waited 10 s for this rank's CLOSE before
 * it told the launcher, and this rank's close then waited 10 s more for a peer that had gone. On udp, when rank 0's
 * close barrier reached rank 1 after rank 1 had left (always, with rank 0 polling 300 ms first), rank 0's close
 * lingered 2 s for an acknowledgement that could not come (3.05 s). Prints the times.
 */
class UnmatchedBarrierIT {
    /** The smp figure (1 s of grace, the process's exit) with room for a loaded 2-core host. */
    private static final double BOUND_SECONDS = 3;

    @ParameterizedTest(name = "{0} {1} {2} ms")
    @CsvSource({"smp, , 0", "udp, , 0", "udp, , 300", "ofi, tcp;ofi_rxm, 0", "ofi, shm, 0"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anExtraBarrierEndsInTheClosedPeerErrorAboutASecondLater(String conduit, String provider, int sleepMs)
        throws Exception {
        final Jobs job = Jobs.start(FailureMidTransferIT.env(provider), "-n", "2", "--conduit", conduit, "--",
            ExtraBarrier.class.getName(), String.valueOf(sleepMs));
        final String what = conduit + (provider == null ? "" : " " + provider)
            + (sleepMs == 0 ? "" : ", rank 0 closing " + sleepMs + " ms late");
        try {
            final long[] pids = job.readyPids(2);
            FailureMidTransferIT.awaitLines(job, "rank 0 last collective at ", 1);
            final long extraAt = Long.parseLong(job.lines.stream()
                .filter(l -> l.startsWith("rank 0 last collective at ")).findFirst().orElseThrow()
                .substring("rank 0 last collective at ".length()));
            // the job's end, by the wall clock the rank stamped its extra barrier with
            final long[] endedAt = new long[2];
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
            while (endedAt[0] == 0 || endedAt[1] == 0) {
                for (int r = 0; r < 2; r++) {
                    if (endedAt[r] == 0 && !ProcessHandle.of(pids[r]).map(ProcessHandle::isAlive).orElse(false)) {
                        endedAt[r] = System.currentTimeMillis();
                    }
                }
                assertTrue(System.nanoTime() < deadline, what + ": ranks still running 40 s on:\n" + job.output());
                Thread.sleep(10);
            }
            OfiRuns.await(job, System.nanoTime(), 20);
            final double rank0 = (endedAt[0] - extraAt) / 1e3;
            final double rank1 = (endedAt[1] - extraAt) / 1e3;
            System.out.printf("%s: from rank 0's extra barrier, rank 0 ended %.2f s after, rank 1 %.2f s%n",
                what, rank0, rank1);
            final String out = job.output();
            assertTrue(job.lines.stream().anyMatch(l -> l.startsWith("rank 0: close failed ")
                && l.contains("rank 1 has closed its client")), what + ":\n" + out);
            assertTrue(job.lines.stream().anyMatch(l -> l.startsWith("rank 1: closed in ")), what + ":\n" + out);
            assertNotEquals(0, job.process.exitValue(), out);
            assertTrue(out.contains("gexrun: exit codes by rank: 0=1 1=0"), what + ":\n" + out);
            for (double seconds : List.of(rank0, rank1)) {
                assertTrue(seconds < BOUND_SECONDS,
                    what + ": " + seconds + " s from the extra barrier to a rank's end:\n" + out);
            }
        } finally {
            if (job.process.isAlive()) {
                OfiRuns.destroy(job);
            }
        }
    }
}
