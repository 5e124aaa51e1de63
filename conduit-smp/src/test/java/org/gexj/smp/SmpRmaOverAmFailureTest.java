package org.gexj.smp;

import org.gexj.GexTimeoutException;
import org.gexj.launch.InProcessJob;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RMA over AM when a chunked put times out half-way (the target does not poll): the call throws, and the thread's
 * next blocking put and get still complete — the chunks never sent are not left pending on the reused event.
 */
class SmpRmaOverAmFailureTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aTimedOutPutLeavesLaterBlockingCallsWorking() {
        final Map<String, String> env = Map.of("GEX_CONDUIT", "smp", "GEX_RMA_OVER_AM", "1",
            "GEX_SMP_RING_BYTES", "65536", "GEX_BACKPRESSURE_TIMEOUT", "1");
        // rank 1 does not poll until rank 0's put has timed out, and rank 0 sends again only once rank 1 polls (the
        // ring may have no room left for anything until then); the ranks are threads of this JVM
        final CountDownLatch timedOut = new CountDownLatch(1);
        final CountDownLatch polling = new CountDownLatch(1);
        InProcessJob.run(2, Duration.ofSeconds(50), env, client -> {
            final Rma rma = Rma.of(client);
            final MemorySegment segment = client.attachSegment(2 << 20).memory();
            assertTrue(rma.overActiveMessages());
            client.barrier();
            if (client.rank() == 0) {
                final MemorySegment big = Arena.ofShared().allocate(1 << 20);
                final long start = System.nanoTime();
                try {
                    assertThrows(GexTimeoutException.class, () -> rma.put(1, 0, big, 0, big.byteSize()));
                    assertTrue(System.nanoTime() - start < 20_000_000_000L, "the timeout took too long");
                } finally {
                    timedOut.countDown();
                }
                assertTrue(polling.await(30, TimeUnit.SECONDS), "rank 1 did not resume polling");
                final MemorySegment word = Arena.ofShared().allocate(8);
                word.set(ValueLayout.JAVA_LONG, 0, 0x1234_5678_9abc_def0L);
                rma.put(1, 1 << 20, word, 0, 8);
                word.set(ValueLayout.JAVA_LONG, 0, 0);
                rma.get(word, 0, 1, 1 << 20, 8);
                assertEquals(0x1234_5678_9abc_def0L, word.get(ValueLayout.JAVA_LONG, 0));
            } else {
                // not polling: rank 0's put runs out of ring space and times out
                assertTrue(timedOut.await(30, TimeUnit.SECONDS), "rank 0's put neither completed nor timed out");
                // the barrier below polls from its first call, well within rank 0's back-pressure timeout of 1 s
                polling.countDown();
            }
            client.barrier();
            if (client.rank() == 1) {
                assertEquals(0x1234_5678_9abc_def0L, segment.get(ValueLayout.JAVA_LONG, 1 << 20));
            }
        });
    }
}
