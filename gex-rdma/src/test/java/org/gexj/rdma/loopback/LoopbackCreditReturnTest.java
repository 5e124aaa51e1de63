package org.gexj.rdma.loopback;

import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.launch.InProcessJob;
import org.gexj.rdma.RdmaEngine;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When a receiver of one-way traffic returns credits alone: once it owes an eighth of a window, and before it sleeps;
 * not on every poll that finds nothing (which cost a credit message per frame). The loopback window is 128 KiB per
 * peer and channel, 512 units of 256 bytes: a Short of no arguments takes 2 units, so an eighth is 32 Shorts.
 */
class LoopbackCreditReturnTest {
    private static final Map<String, String> ENV = Map.of("GEX_CONDUIT", "rdma-loopback");
    private static final String COUNTER = "rdma-loopback.credit.messages";
    private static final int MESSAGES = 500;

    @Test
    void smallDebtsGoBackTogetherNotAfterEveryPollThatFindsNothing() {
        final AtomicLong creditMessages = new AtomicLong(-1);
        final AtomicInteger arrived = new AtomicInteger();
        // the number of Shorts rank 1 had taken when one of its polls last found nothing
        final AtomicInteger idleAfter = new AtomicInteger();
        final CountDownLatch ready = new CountDownLatch(2);
        final CountDownLatch done = new CountDownLatch(2);
        InProcessJob.run(2, Duration.ofSeconds(60), ENV, client -> {
            final Am am = Am.of(client);
            final int handler = am.register(AmHandler.shortRequest(0, (token, args) -> arrived.incrementAndGet()));
            ready.countDown();
            assertTrue(ready.await(30, TimeUnit.SECONDS), "both ranks registered the handler");
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            if (client.rank() == 0) {
                for (int i = 1; i <= MESSAGES; i++) {
                    am.requestShort(1, handler);
                    // one Short at a time, each followed by a poll of rank 1's that finds nothing
                    while (idleAfter.get() < i) {
                        assertTrue(System.nanoTime() < end, "rank 1 idle after " + idleAfter.get() + " of " + i);
                        client.poll();
                    }
                }
            } else {
                final long before = client.conduitCounters().get(COUNTER);
                while (arrived.get() < MESSAGES) {
                    assertTrue(System.nanoTime() < end, "rank 1 got " + arrived.get() + " of " + MESSAGES);
                    final int taken = arrived.get();
                    if (client.poll() == 0) {
                        idleAfter.set(taken);
                    }
                }
                creditMessages.set(client.conduitCounters().get(COUNTER) - before);
                idleAfter.set(MESSAGES);
            }
            done.countDown();
            while (done.getCount() > 0) {
                assertTrue(System.nanoTime() < end, "both ranks done");
                client.poll();
            }
        });
        // 500 Shorts of 2 units return in about 16 messages of 64 units, plus one per 10 ms liveness look; returned
        // by every poll that finds nothing, they took 500
        assertTrue(creditMessages.get() >= 1 && creditMessages.get() <= MESSAGES / 8,
            creditMessages.get() + " credit messages for " + MESSAGES + " one-way Shorts");
    }

    @Test
    void aRankThatSleepsFirstReturnsWhatItOwes() {
        final CountDownLatch ready = new CountDownLatch(2);
        final CountDownLatch slept = new CountDownLatch(1);
        final AtomicInteger creditsAfter = new AtomicInteger(-1);
        final AtomicInteger window = new AtomicInteger(-1);
        InProcessJob.run(2, Duration.ofSeconds(60), ENV, client -> {
            final Am am = Am.of(client);
            final AtomicInteger arrived = new AtomicInteger();
            final int handler = am.register(AmHandler.shortRequest(0, (token, args) -> arrived.incrementAndGet()));
            final RdmaEngine engine = LoopbackRdmaConduit.engine(client.jobId(), client.rank());
            ready.countDown();
            assertTrue(ready.await(30, TimeUnit.SECONDS), "both ranks registered the handler");
            if (client.rank() == 0) {
                for (int i = 0; i < 3; i++) {
                    am.requestShort(1, handler); // 6 units: far below an eighth of the window
                }
                assertTrue(slept.await(30, TimeUnit.SECONDS), "rank 1 slept");
                final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (engine.credits(1, 0) < engine.windowUnits() && System.nanoTime() < end) {
                    client.poll();
                }
                creditsAfter.set(engine.credits(1, 0));
                window.set(engine.windowUnits());
            } else {
                final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (arrived.get() < 3) {
                    assertTrue(System.nanoTime() < end, "rank 1 got " + arrived.get() + " of 3");
                    client.poll();
                }
                engine.awaitActivity(TimeUnit.MILLISECONDS.toNanos(1));
                slept.countDown();
                // no poll from here on: only the return before the sleep can have given rank 0 its credits back
                while (window.get() < 0) {
                    Thread.sleep(1);
                }
            }
        });
        assertEquals(window.get(), creditsAfter.get(), "rank 0's credits toward rank 1 after rank 1 slept");
    }
}
