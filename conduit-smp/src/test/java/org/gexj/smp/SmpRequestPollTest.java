package org.gexj.smp;

import org.gexj.Client;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.testkit.ConduitKit;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Over smp a large request polls on its way out, as GASNet-EX's requests poll on entry: what a peer sent runs before
 * the request returns, so two ranks flooding each other drain each other's frames between their own. A small request
 * does not pay for the poll, except one in every {@link #EVERY} (AmClaims' POLL_EVERY_REQUESTS), which polls the
 * request channel only; a Long whose payload is copied into the peer's segment never polls for its envelope, and an
 * IMMEDIATE request does not poll (nor does GASNet's).
 */
class SmpRequestPollTest extends ConduitKit {
    private static final int SMALL = 1024;
    private static final int LARGE = 16 * 1024;
    private static final int TINY = 8;
    private static final int EVERY = 64;

    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }

    @Test
    void aLargeRequestOrEverySixtyFourthSmallOneRunsWhatArrivedBeforeItAndOtherSmallLongOrImmediateOnesDoNot() {
        exactJob(2, client -> {
            client.attachSegment(1 << 16);
            final Am am = Am.of(client);
            final AtomicLong shorts = new AtomicLong();
            final AtomicLong mediums = new AtomicLong();
            final int shortHandler = am.register(AmHandler.shortRequest(0, (t, a) -> shorts.incrementAndGet()));
            final int mediumHandler = am.register(AmHandler.mediumRequest(0, (t, p, a) -> mediums.incrementAndGet()));
            final AtomicLong pongs = new AtomicLong();
            final int pongHandler = am.register(AmHandler.shortReply(0, (t, a) -> pongs.incrementAndGet()));
            final AtomicLong pings = new AtomicLong();
            final int pingHandler = am.register(AmHandler.shortRequest(0, (t, a) -> {
                pings.incrementAndGet();
                t.replyShort(pongHandler);
            }));
            final AtomicLong longs = new AtomicLong();
            final int longHandler = am.register(AmHandler.longRequest(0, (t, p, a) -> longs.incrementAndGet()));
            client.barrier();
            if (client.rank() == 1) {
                // rank 0 may still poll in the barrier: the request goes once it has left
                signals().await("left-barrier", Duration.ofSeconds(30));
                am.requestShort(0, shortHandler);
                signals().post("sent", 1);
                awaitCount(client, mediums, 3, "rank 0's Mediums");
                awaitCount(client, pings, 1, "rank 0's ping");
                am.requestShort(0, shortHandler);
                signals().post("sent-again", 1);
                awaitCount(client, mediums, 3 + EVERY - 1, "rank 0's Mediums");
                am.requestShort(0, shortHandler);
                signals().post("sent-third", 1);
                awaitCount(client, longs, 2 * EVERY, "rank 0's Longs");
            } else {
                signals().post("left-barrier", 1);
                signals().await("sent", Duration.ofSeconds(30));
                final MemorySegment payload = Arena.ofAuto().allocate(LARGE);
                assertEquals(0, shorts.get(), "rank 1's request ran before rank 0 polled");
                assertEquals(Am.OK, am.requestMedium(1, mediumHandler, payload, 0, SMALL, Lc.NOW));
                assertEquals(0, shorts.get(), "a " + SMALL + "-byte Medium request polled");
                assertEquals(Am.OK, am.tryRequestMedium(1, mediumHandler, payload, 0, LARGE, Lc.NOW));
                assertEquals(0, shorts.get(), "an IMMEDIATE " + LARGE + "-byte Medium request polled");
                assertEquals(Am.OK, am.requestMedium(1, mediumHandler, payload, 0, LARGE, Lc.NOW));
                assertEquals(1, shorts.get(), "a " + LARGE + "-byte Medium request did not run rank 1's request");
                am.requestShort(1, pingHandler); // its reply waits in rank 0's reply channel from now on
                signals().await("sent-again", Duration.ofSeconds(30));
                for (int i = 2; i < EVERY; i++) {
                    assertEquals(Am.OK, am.requestMedium(1, mediumHandler, payload, 0, TINY, Lc.NOW));
                }
                assertEquals(1, shorts.get(), (EVERY - 1) + " small requests after a poll polled");
                assertEquals(Am.OK, am.requestMedium(1, mediumHandler, payload, 0, TINY, Lc.NOW));
                assertEquals(2, shorts.get(), "the " + EVERY + "th small request after a poll did not poll");
                assertEquals(0, pongs.get(), "the " + EVERY + "th small request polled the reply channel");
                signals().await("sent-third", Duration.ofSeconds(30));
                for (int i = 0; i < 2 * EVERY; i++) {
                    am.requestLong(1, longHandler, payload, 0, TINY, 0, Lc.NOW);
                }
                assertEquals(2, shorts.get(), "a Long request polled for its envelope");
            }
            client.barrier();
        });
    }

    private static void awaitCount(Client client, AtomicLong count, long expected, String what) {
        final long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (count.get() < expected && System.nanoTime() < end) {
            client.poll();
        }
        assertEquals(expected, count.get(), what + " handled");
    }
}
