package org.gexj.benchutil;

import java.util.function.IntConsumer;

/**
 * The end of a benchmark's warm-up, from its last silent pass to its first timed row, as testam, testqueue and
 * testsmall/testlarge run it. On 2 cores, three things left to the timed pass each cost a row milliseconds:
 * <ol>
 *   <li>Code that runs between two timed loops (a barrier, a row's line) runs a few dozen times per pass and reaches
 *       the JIT's last tier only in the timed pass. The C2 compile of {@code java.util.Formatter} takes 3-5 ms of a
 *       core, and a peer rank that yields in a barrier hands it its core: udp testlarge rows of 200 puts took 3-4 ms
 *       longer ({@link #betweenRows}).</li>
 *   <li>A rank's first park deoptimises its compiled barrier; it is recompiled in the timed pass unless a rank parks
 *       once in the warm-up and runs barriers enough to climb the tiers again ({@link #finish}).</li>
 *   <li>Ranks that slept (waiting for the JIT) wake up on one core and take turns there for milliseconds until the
 *       scheduler moves one to the idle core: the first timed rows took 3-4 times as long. Barriers, which yield,
 *       and a busy spin, which does not, settle that first ({@link #finish}).</li>
 * </ol>
 * Every count scales down with a warm-up shorter than the program's default ({@link #scaled}), so that tests with
 * {@code -warmup 10} stay short.
 */
public final class WarmupFinish {
    /** Calls of the code between rows: the JIT's last tier wants a few thousand calls of each of its forms. */
    public static final int ROW_CODE_CALLS = 20_000;
    /**
     * Barriers after a rank's first park: the deoptimised barrier climbs the JIT's tiers again, which 10 000 calls
     * did not always finish, leaving its last compilation for the timed pass.
     */
    public static final int RECOMPILE_BARRIERS = 30_000;
    /** About 5 ms of barriers when the ranks run on separate cores, longer while they share one. */
    public static final int SETTLE_BARRIERS = 2000;
    /** Longer than a barrier spins and yields before it parks: 20 000 yields, 1-5 us each here. */
    public static final long PARKING_WAIT_MS = 200;
    /**
     * A busy spin on each rank before the last barrier: ranks that yield and park in barriers can stay on one core,
     * each running while the other waits; two busy ranks on one core is an imbalance the scheduler corrects within
     * milliseconds. smp testam runs of section I whose first rows took 0.2-1.6 us a message (0.04-0.06 after): 6 of 8
     * without it, 2 of 8 with it; alternated with the build before it, 4 of 10 against 6 of 10. Fewer, not none.
     */
    public static final long SETTLE_SPIN_NS = 30_000_000L;
    /** The share of the counts above that this warm-up runs, (0, 1]. */
    private final double share;

    private WarmupFinish(double share) {
        this.share = share;
    }

    /**
     * The end of a warm-up of {@code warmupIters} iterations, for a program whose default is {@code fullAt}: the
     * counts in full from there, proportionally fewer below (the JIT's thresholds are the same on every conduit, so
     * the smallest default of a program gets them all).
     */
    public static WarmupFinish scaled(int warmupIters, int fullAt) {
        if (fullAt <= 0) {
            throw new IllegalArgumentException("fullAt " + fullAt + " is not positive");
        }
        return new WarmupFinish(Math.min(1.0, Math.max(0, warmupIters) / (double) fullAt));
    }

    /**
     * Runs {@code rowCode} {@link #ROW_CODE_CALLS} times (fewer for a shorter warm-up): each call should run the code
     * between two timed loops, a barrier and a row printed to the warm-up's sink, with values that vary with the
     * call's index as real ones do (a digit pattern the profile has not seen deoptimises the formatting).
     */
    public void betweenRows(IntConsumer rowCode) {
        final int calls = count(ROW_CODE_CALLS);
        for (int i = 0; i < calls; i++) {
            rowCode.accept(i);
        }
    }

    /**
     * After the warm-up's passes: each rank parks once in a barrier (the other sleeps {@link #PARKING_WAIT_MS} first,
     * by rank parity), {@link #RECOMPILE_BARRIERS} barriers recompile it, the JIT goes quiet
     * ({@link JitQuiescence}), {@link #SETTLE_BARRIERS} barriers and a spin of {@link #SETTLE_SPIN_NS} settle the ranks
     * on their cores. Collective.
     */
    public void finish(int rank, Runnable barrier) {
        for (int parity = 0; parity < 2; parity++) {
            if (rank % 2 != parity) {
                sleep(PARKING_WAIT_MS);
            }
            barrier.run();
        }
        repeat(count(RECOMPILE_BARRIERS), barrier);
        JitQuiescence.await();
        barrier.run();
        repeat(count(SETTLE_BARRIERS), barrier);
        spin(SETTLE_SPIN_NS);
        barrier.run();
    }

    private static void spin(long ns) {
        final long end = System.nanoTime() + ns;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    /** This warm-up's share of {@code full}, at least one. */
    int count(int full) {
        return (int) Math.max(1, Math.round(full * share));
    }

    private static void repeat(int times, Runnable barrier) {
        for (int i = 0; i < times; i++) {
            barrier.run();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
