package org.gexj.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The library's collectives make no heap segment of their own. The first heap segment in a process loads the JDK's
 * heap segment classes, and that invalidates every method C2 compiled while only native segments existed: every
 * copy of the caller's RMA loops went back to the interpreter at its first collective. testvisperf's first check that
 * the JIT was quiet (a reduction) did it to the whole VIS path just before the timed pass. Run with the JVM's
 * class-load log, on smp, 2 ranks: {@link NativeCollectives} with native buffers loads no heap segment class; the
 * same program making one heap segment itself shows it in the log, so the check cannot pass for a log that is silent.
 */
class CollectivesLoadNoHeapSegmentsIT {
    private static final String HEAP_SEGMENT = "jdk.internal.foreign.HeapMemorySegmentImpl";

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void barrierBroadcastReduceAndSplitLoadNoHeapSegmentClass() throws Exception {
        final String out = run(false);
        assertFalse(out.lines().anyMatch(l -> l.contains(HEAP_SEGMENT)), out);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theLogShowsAHeapSegmentTheProgramMakes() throws Exception {
        final String out = run(true);
        assertTrue(out.lines().anyMatch(l -> l.contains(HEAP_SEGMENT)), out);
    }

    private static String run(boolean heap) throws Exception {
        final Map<String, String> env = FailureMidTransferIT.env(null);
        env.put("GEX_JVM_OPTS", "-Xlog:class+load=info:stdout");
        final Jobs job = heap
            ? Jobs.start(env, "-n", "2", "--conduit", "smp", "--", NativeCollectives.class.getName(), "heap")
            : Jobs.start(env, "-n", "2", "--conduit", "smp", "--", NativeCollectives.class.getName());
        try {
            assertTrue(job.process.waitFor(100, TimeUnit.SECONDS), job.output());
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); // the reader drains the pipe
            while (!(job.output().contains("done 0") && job.output().contains("done 1"))
                && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            final String out = job.output();
            assertEquals(0, job.process.exitValue(), out);
            assertTrue(out.contains("done 0") && out.contains("done 1"), out);
            return out;
        } finally {
            if (job.process.isAlive()) {
                OfiRuns.destroy(job);
            }
        }
    }
}
