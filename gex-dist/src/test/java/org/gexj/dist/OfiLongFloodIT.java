package org.gexj.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Floods of AM Long requests of random sizes up to 1 MiB from every rank to every rank, itself included, on the ofi
 * conduit with target-side reassembly ({@link LongFlood}): every payload arrives once, whole, in its place, and
 * each target counts exactly what each source sent. The seed is random and printed; {@code -DLONGFLOOD_SEED=N}
 * replays a run.
 */
class OfiLongFloodIT {
    private static final int MAX_SIZE = 1 << 20;
    /** Payloads in flight per (source, target): enough to keep several reassemblies open at once. */
    private static final int WINDOW = 8;
    /** How long a rank may wait for anything before it prints its state and exits with 2. */
    private static final int RANK_DEADLINE_SECONDS = 75;

    @ParameterizedTest(name = "{0}, {1} ranks, {2} messages per pair")
    @CsvSource({"tcp;ofi_rxm, 2, 100", "tcp;ofi_rxm, 4, 50"}) // shm: OfiShmIT
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyLongArrivesOnceWholeAndInPlace(String provider, int ranks, int messages) throws Exception {
        flood(provider, ranks, messages);
    }

    /** Runs {@link LongFlood} and checks every (target, source) count and byte total against the seed's sizes. */
    static void flood(String provider, int ranks, int messages) throws Exception {
        final long seed = Long.getLong("LONGFLOOD_SEED", System.nanoTime());
        System.out.println("LongFlood seed " + seed + " (" + provider + ", " + ranks + " ranks)");
        final long start = System.nanoTime();
        final Jobs job = Jobs.start(OfiRuns.env(provider), "-n", Integer.toString(ranks), "--conduit", "ofi",
            "-E", "GEX_AMLONG_PROTOCOL=reassembly", "--", LongFlood.class.getName(), Long.toString(seed),
            Integer.toString(messages), Integer.toString(MAX_SIZE), Integer.toString(WINDOW),
            Integer.toString(RANK_DEADLINE_SECONDS));
        final double seconds = OfiRuns.await(job, start, 110);
        final String context = "seed " + seed + ", " + provider + ", " + ranks + " ranks:\n" + job.output();
        assertEquals(0, job.process.exitValue(), context);
        assertTrue(job.lines.stream().anyMatch(l -> l.startsWith(OfiRuns.conduitLine(ranks, provider))), context);
        assertTrue(job.lines.contains("seed " + seed), context);
        assertTrue(job.lines.contains("protocol " + MAX_SIZE + ": reassembly"), "large Longs were reassembled:\n"
            + context);
        for (int target = 0; target < ranks; target++) {
            for (int source = 0; source < ranks; source++) {
                // the bytes are counted by the handlers; the sizes come from the seed here, independently
                long bytes = 0;
                for (int seq = 0; seq < messages; seq++) {
                    bytes += LongFlood.size(seed, source, target, seq, MAX_SIZE);
                }
                final String expected = "rank " + target + " from " + source + ": received " + messages + " of "
                    + messages + ", " + bytes + " bytes, 0 bad";
                assertTrue(job.lines.contains(expected), "missing '" + expected + "'\n" + context);
            }
            assertTrue(job.lines.contains("rank " + target + ": OK"), context);
        }
        assertFalse(job.lines.stream().anyMatch(l -> l.contains("bad payload") || l.contains("FAIL")
            || l.contains("TIMEOUT")), context);
        System.out.printf("LongFlood %s, %d ranks, %d messages per pair: %.1f s%n", provider, ranks, messages, seconds);
    }

    /** The negative control: one flipped byte in one payload is found, named, and fails the job. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aCorruptedPayloadFailsTheJob() throws Exception {
        final long seed = 42;
        final Jobs job = Jobs.start(OfiRuns.env(OfiRuns.TCP), "-n", "2", "--conduit", "ofi",
            "-E", "GEX_AMLONG_PROTOCOL=reassembly", "--", LongFlood.class.getName(), Long.toString(seed), "10",
            Integer.toString(MAX_SIZE), Integer.toString(WINDOW), Integer.toString(RANK_DEADLINE_SECONDS), "corrupt");
        OfiRuns.await(job, System.nanoTime(), 110);
        assertEquals(1, job.process.exitValue(), job.output());
        final List<String> bad = job.lines.stream()
            .filter(l -> l.startsWith("rank 1: bad payload from rank 0 message ")).toList();
        assertEquals(1, bad.size(), "rank 1 names the corrupted message:\n" + job.output());
        assertTrue(bad.getFirst().matches(".* byte \\d+ of \\d+ is -?\\d+, expected -?\\d+"), bad.getFirst());
        assertTrue(job.lines.stream().anyMatch(l -> l.startsWith("rank 1 from 0: received 10 of 10, ")
            && l.endsWith(" bytes, 1 bad")), job.output());
        assertTrue(job.lines.contains("rank 0: OK"), job.output());
        assertTrue(job.lines.contains("gexrun: exit codes by rank: 0=1 1=1"),
            "every rank exits with 1:\n" + job.output());
    }
}
