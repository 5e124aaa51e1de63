package org.gexj.benchutil;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

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
