package org.gexj.benchutil;

import java.util.Locale;

/**
 * GASNet's performance tests start with the timer's granularity and overhead; these are System.nanoTime()'s.
 *
 * <p>The overhead is what one reading costs a timed loop, which runs compiled: the mean time per call of the fastest of
 * {@value #ROUNDS} rounds of {@value #CALLS} back-to-back calls. The rounds run in one loop, which the JIT compiles
 * while it runs (after about 100 rounds); the rounds before cost 3-5 times as much in the interpreter, and a round the
 * OS interrupted costs more too, so neither shows in the minimum. The granularity is the smallest non-zero step between
 * two consecutive readings.
 *
 * <p>System.nanoTime() reads CLOCK_MONOTONIC through the vDSO, which costs more than the bare rdtsc behind GASNet's
 * figure: on the kvm-clock VM of the README's numbers, 26-30 ns against 12 ns.
 */
public final class TimerGranularity {
    private static final int ROUNDS = 400;
    private static final int CALLS = 1000;

    private TimerGranularity() {
    }

    /** Measures now (about 20 ms): {@code Timer granularity: <= G us, overhead: ~ O us}. */
    public static String line() {
        long fastestRound = Long.MAX_VALUE;
        long smallestStep = Long.MAX_VALUE;
        long last = System.nanoTime();
        for (int round = 0; round < ROUNDS; round++) {
            final long start = last;
            for (int i = 0; i < CALLS; i++) {
                final long now = System.nanoTime();
                if (now > last) {
                    smallestStep = Math.min(smallestStep, now - last);
                }
                last = now;
            }
            fastestRound = Math.min(fastestRound, last - start);
        }
        final double overheadUs = fastestRound / 1000.0 / CALLS;
        final double granularityUs = smallestStep == Long.MAX_VALUE ? overheadUs : smallestStep / 1000.0;
        return String.format(Locale.ROOT, "Timer granularity: <= %.3f us, overhead: ~ %.3f us",
            granularityUs, overheadUs);
    }
}
