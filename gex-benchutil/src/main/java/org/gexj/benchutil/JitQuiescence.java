package org.gexj.benchutil;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.LongUnaryOperator;

/**
 * For benchmarks after their warm-up: with two cores, a JIT compiler thread still busy takes a core from a spinning
 * rank and shows up as a latency spike in the first timed section.
 */
public final class JitQuiescence {
    private static final long QUIET_MS = 200;
    private static final long MAX_WAIT_NS = 10_000_000_000L;

    private JitQuiescence() {
    }

    /** Milliseconds this JVM's JIT has spent compiling so far, or 0 where it does not account for them. */
    public static long compileMillis() {
        final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    /**
     * Runs a silent warm-up pass again while the last one still compiled: a deoptimised loop recompiled during the
     * timed pass, or left in the first tiers, costs its rows. Collective: every rank runs the same passes.
     *
     * @param pass         one silent pass (collective)
     * @param maxOverRanks the largest of the ranks' values (collective)
     * @param maxPasses    at most this many passes
     * @param quietMs      a pass in which no rank compiled longer than this ends it
     */
    public static void repeatWhileCompiling(Runnable pass, LongUnaryOperator maxOverRanks, int maxPasses,
                                            long quietMs) {
        for (int done = 0; done < maxPasses; done++) {
            final long before = compileMillis();
            pass.run();
            if (maxOverRanks.applyAsLong(compileMillis() - before) <= quietMs) {
                return;
            }
        }
    }

    /** Returns once the JIT has compiled nothing for 200 ms, or after 10 s, or at once without JIT accounting. */
    public static void await() {
        final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return;
        }
        final long deadline = System.nanoTime() + MAX_WAIT_NS;
        long last = jit.getTotalCompilationTime();
        while (System.nanoTime() < deadline) {
            try {
                Thread.sleep(QUIET_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            final long now = jit.getTotalCompilationTime();
            if (now == last) {
                return;
            }
            last = now;
        }
    }
}
