package org.gexj.smp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The split-phase barrier in shared memory. */
class SmpBarrierTest {
    @Test
    @Timeout(30)
    void aPhaseCompletesOnlyWhenEveryRankHasNotified() {
        try (SmpJob job = SmpJob.open(3)) {
            final SmpConduit[] c = job.conduits;
            c[0].barrierNotify();
            assertFalse(c[0].barrierTry());
            c[2].barrierNotify();
            assertFalse(c[0].barrierTry());
            assertFalse(c[2].barrierTry());
            c[1].barrierNotify();
            assertTrue(c[0].barrierTry());
            assertTrue(c[1].barrierTry());
            assertTrue(c[2].barrierTry());
            // rank 2 runs ahead into the next phase; ranks still finishing the last one are not held back
            c[2].barrierNotify();
            assertFalse(c[2].barrierTry());
            assertTrue(c[0].barrierTry());
            c[0].barrierNotify();
            c[1].barrierNotify();
            assertTrue(c[2].barrierTry());
        }
    }

    /**
     * Three ranks on threads (more than this machine's cores, so ranks are descheduled mid-phase) pass 100000
     * phases. Before notifying phase p every rank counts itself in p and writes p into its own plain slot; whoever
     * passes p must see all three counts and every slot at p or later.
     */
    @Test
    @Timeout(30)
    void hundredThousandPhasesOnThreeThreadsMissNone() {
        final int phases = 100_000;
        final AtomicIntegerArray arrivals = new AtomicIntegerArray(phases);
        final long[] slots = new long[3 * 8];
        try (SmpJob job = SmpJob.open(3)) {
            final long started = System.nanoTime();
            final List<Integer> early = job.onEachRank(rank -> {
                int seenEarly = 0;
                for (int p = 0; p < phases; p++) {
                    arrivals.incrementAndGet(p);
                    slots[rank * 8] = p;
                    job.barrier(rank);
                    if (arrivals.get(p) != 3) {
                        seenEarly++;
                    }
                    for (int r = 0; r < 3; r++) {
                        if (slots[r * 8] < p) {
                            seenEarly++;
                        }
                    }
                }
                return seenEarly;
            });
            final long ns = System.nanoTime() - started;
            System.out.printf("smp barrier: %d phases x 3 ranks on %d cores, %.2f us per phase%n", phases,
                Runtime.getRuntime().availableProcessors(), ns / 1e3 / phases);
            assertEquals(List.of(0, 0, 0), early, "phases some rank passed before every rank had entered");
        }
    }
}
