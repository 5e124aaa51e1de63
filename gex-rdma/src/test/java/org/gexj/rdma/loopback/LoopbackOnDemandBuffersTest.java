package org.gexj.rdma.loopback;

import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.launch.InProcessJob;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Receive buffers posted per connection: in a job of 4 where only rank 0 sends, and only to rank 1, ranks 0 and 1
 * post two shares (their own and each other's), ranks 2 and 3 one; posted for every rank at start, all post four.
 */
class LoopbackOnDemandBuffersTest {
    private static final String COUNTER = "rdma-loopback.receive.buffers";
    private static final int RANKS = 4;
    /** More than a window (4 messages per peer and channel), so credits go back over the new connection. */
    private static final int MESSAGES = 200;

    @Test
    void onDemandARankPostsBuffersOnlyForThePeersItTalksTo() {
        final long[] posted = postedAfterRank0SendsToRank1(true);
        final long share = posted[2];
        assertTrue(share > 0, "rank 2 posts its own share");
        assertEquals(share, posted[3], "rank 3, which nobody reached, posts only its own share");
        assertEquals(2 * share, posted[0], "rank 0: its own share and rank 1's");
        assertEquals(2 * share, posted[1], "rank 1: its own share and rank 0's");
    }

    @Test
    void staticallyEveryRankPostsForEveryRank() {
        final long[] posted = postedAfterRank0SendsToRank1(false);
        for (int r = 0; r < RANKS; r++) {
            assertEquals(posted[0], posted[r], "rank " + r);
        }
        final long[] onDemand = postedAfterRank0SendsToRank1(true);
        assertEquals(RANKS * onDemand[2], posted[0], "all four shares");
    }

    /** Each rank's posted receive buffers once rank 0's messages to rank 1 have all arrived. */
    private static long[] postedAfterRank0SendsToRank1(boolean onDemand) {
        final long[] posted = new long[RANKS];
        final CountDownLatch registered = new CountDownLatch(RANKS);
        final CountDownLatch counted = new CountDownLatch(RANKS);
        InProcessJob.run(RANKS, Duration.ofSeconds(60), Map.of("GEX_CONDUIT", "rdma-loopback",
            LoopbackRdmaConduit.MULTI, "false", LoopbackRdmaConduit.ONDEMAND, Boolean.toString(onDemand)), client -> {
                final Am am = Am.of(client);
                final AtomicInteger arrived = new AtomicInteger();
                final int handler = am.register(AmHandler.shortRequest(0, (token, args) -> arrived.incrementAndGet()));
                // the ranks are threads of this JVM: a latch, not an AM barrier, which would connect partners
                registered.countDown();
                assertTrue(registered.await(30, TimeUnit.SECONDS), "every rank registered its handler");
                if (client.rank() == 0) {
                    for (int i = 0; i < MESSAGES; i++) {
                        am.requestShort(1, handler);
                    }
                }
                if (client.rank() == 1) {
                    final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (arrived.get() < MESSAGES) {
                        assertTrue(System.nanoTime() < end, "rank 1 got " + arrived.get() + " of " + MESSAGES);
                        client.poll();
                        Thread.onSpinWait();
                    }
                }
                posted[client.rank()] = client.conduitCounters().get(COUNTER);
                counted.countDown();
                // rank 0 polls on meanwhile, taking rank 1's credit returns
                final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (counted.getCount() > 0) {
                    assertTrue(System.nanoTime() < end, "every rank counted");
                    client.poll();
                    Thread.onSpinWait();
                }
            });
        return posted;
    }
}
