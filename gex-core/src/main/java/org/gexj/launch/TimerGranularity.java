package org.gexj.launch;

import java.util.Locale;

/** GASNet's performance tests start with the timer's granularity and overhead; these are System.nanoTime()'s. */
public final class TimerGranularity {
    private static final int CALLS = 100_000;

    private TimerGranularity() {
    }

    /** Measures now (a few milliseconds): {@code Timer granularity: <= G us, overhead: ~ O us}. */
    public static String line() {
        long smallestStep = Long.MAX_VALUE;
        final long start = System.nanoTime();
        long last = start;
        for (int i = 0; i < CALLS; i++) {
            final long now = System.nanoTime();
            if (now > last) {
                smallestStep = Math.min(smallestStep, now - last);
            }
            last = now;
        }
        final double overheadUs = (last - start) / 1000.0 / CALLS;
        final double granularityUs = smallestStep == Long.MAX_VALUE ? overheadUs : smallestStep / 1000.0;
        return String.format(Locale.ROOT, "Timer granularity: <= %.3f us, overhead: ~ %.3f us", granularityUs, overheadUs);
    }
}
