package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.Flags;
import org.gexj.GexTimeoutException;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AM Long sends that are refused or fail before they go leave no trace: the credit slot of a reassembled Long comes
 * back with its generation unchanged, so the next Long on that slot is delivered. Meaningful where Long payloads are
 * reassembled (ofi, emu); elsewhere the refused Longs are packed and the test checks plain delivery.
 */
public abstract class AmLongCreditKit extends ConduitKit {
    private static final long SEGMENT = 1 << 20;
    private static final int LONG_BYTES = 16 * 1024;
    private static final int REFUSED_TRIES = 30;
    private static final int LONGS = 300;

    private static void pollUntil(Client client, Duration limit, java.util.function.BooleanSupplier done,
                                  java.util.function.Supplier<String> what) {
        final long end = System.nanoTime() + limit.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError(what.get() + " after " + limit.toSeconds() + " s");
            }
            client.poll();
            Thread.onSpinWait();
        }
    }

    /**
     * Sends IMMEDIATE Shorts to rank 1, which does not poll, until its request path is full for good: an endpoint may
     * refuse a frame for a moment (ofi_rxm, until its queue moves on), which a poll undoes, so the flood ends only once
     * three polls in a row made no room. @return the Shorts sent
     */
    private static long floodUntilFull(Client client, Am am, int handler) {
        long sent = 0;
        for (int refusedAfterPoll = 0; refusedAfterPoll < 3; ) {
            if (am.requestShort(1, handler, Flags.IMMEDIATE, new int[0], 0) == Am.OK) {
                sent++;
                refusedAfterPoll = 0;
                assertTrue(sent < 50_000_000L, "a peer that does not poll must fill the path");
            } else {
                client.poll();
                refusedAfterPoll++;
            }
        }
        return sent;
    }

    /**
     * The target does not poll while the source fills the request path with IMMEDIATE Shorts, then tries IMMEDIATE
     * Longs above the packed limit (refused), then sends blocking Longs: every one accepted runs its handler.
     */
    @Test
    void longsRefusedWithImmediateLeaveTheirCreditSlotsUsable() {
        exactJob(2, client -> {
            final Am am = Am.of(client);
            client.attachSegment(SEGMENT);
            final AtomicLong shorts = new AtomicLong();
            final AtomicLong longs = new AtomicLong();
            final int hs = am.register(AmHandler.shortRequest(0, (t, a) -> shorts.incrementAndGet()));
            final int hl = am.register(AmHandler.longRequest(1, (t, p, a) -> {
                assertEquals(LONG_BYTES, p.length(), "Long payload length");
                longs.incrementAndGet();
            }));
            client.barrier();
            final KitSignals signals = signals();
            if (client.rank() == 0) {
                final MemorySegment src = Arena.ofAuto().allocate(LONG_BYTES);
                long sentShorts = -1;
                long sentLongs = -1;
                try {
                    signals.await("target-quiet", Duration.ofSeconds(60));
                    sentShorts = floodUntilFull(client, am, hs);
                    sentLongs = 0;
                    final int[] args = {0};
                    for (int i = 0; i < REFUSED_TRIES; i++) {
                        if (am.requestLong(1, hl, src, 0, LONG_BYTES, 0, Lc.NOW, Flags.IMMEDIATE, args, 1) == Am.OK) {
                            sentLongs++;
                        }
                    }
                } finally {
                    signals.post("flooded-shorts", sentShorts);
                    signals.post("flooded-longs", sentLongs);
                }
                for (int i = 0; i < LONGS; i++) {
                    am.requestLong(1, hl, src, 0, LONG_BYTES, 0, Lc.NOW, 0);
                }
            } else {
                signals.post("target-quiet", 1);
                final long sentShorts = signals.await("flooded-shorts", Duration.ofSeconds(60));
                final long sentLongs = signals.await("flooded-longs", Duration.ofSeconds(60));
                assertTrue(sentShorts > 0 && sentLongs >= 0, "rank 0 failed during its flood");
                pollUntil(client, Duration.ofSeconds(30),
                    () -> shorts.get() >= sentShorts && longs.get() >= sentLongs + LONGS,
                    () -> "rank 1 ran " + shorts.get() + " of " + sentShorts + " Short and " + longs.get() + " of "
                        + (sentLongs + LONGS) + " Long handlers (" + am.droppedFrames() + " dropped)");
                client.barrier();
                assertEquals(sentShorts, shorts.get(), "Short handlers run");
                assertEquals(sentLongs + LONGS, longs.get(), "Long handlers run");
                assertEquals(0, am.droppedFrames(), "frames dropped");
                return;
            }
            client.barrier();
        });
    }

    /**
     * A blocking Long that times out on a full path (GEX_BACKPRESSURE_TIMEOUT) sends nothing and holds no credit slot;
     * the path works once the target polls again.
     */
    @Test
    void longThatTimesOutOnAFullPathHoldsNoCreditSlot() {
        exactJob(2, Map.of("GEX_BACKPRESSURE_TIMEOUT", "1"), client -> {
            final Am am = Am.of(client);
            client.attachSegment(SEGMENT);
            final AtomicLong shorts = new AtomicLong();
            final AtomicLong longs = new AtomicLong();
            final int hs = am.register(AmHandler.shortRequest(0, (t, a) -> shorts.incrementAndGet()));
            final int hl = am.register(AmHandler.longRequest(1, (t, p, a) -> longs.incrementAndGet()));
            client.barrier();
            final KitSignals signals = signals();
            if (client.rank() == 0) {
                final MemorySegment src = Arena.ofAuto().allocate(LONG_BYTES);
                long sentShorts = -1;
                try {
                    signals.await("target-quiet", Duration.ofSeconds(60));
                    sentShorts = floodUntilFull(client, am, hs);
                    assertThrows(GexTimeoutException.class,
                        () -> am.requestLong(1, hl, src, 0, LONG_BYTES, 0, Lc.NOW, 0));
                    assertEquals(0, am.longCreditsInFlight(1), "credit slots held after the timed-out Long");
                } finally {
                    signals.post("flooded-shorts", sentShorts);
                }
                am.requestLong(1, hl, src, 0, LONG_BYTES, 0, Lc.NOW, 0);
                client.barrier();
                pollUntil(client, Duration.ofSeconds(30), () -> am.longCreditsInFlight(1) == 0,
                    () -> am.longCreditsInFlight(1) + " credit slots still held toward rank 1");
            } else {
                signals.post("target-quiet", 1);
                final long sentShorts = signals.await("flooded-shorts", Duration.ofSeconds(60));
                assertTrue(sentShorts > 0, "rank 0 failed during its flood");
                pollUntil(client, Duration.ofSeconds(30), () -> shorts.get() >= sentShorts && longs.get() >= 1,
                    () -> "rank 1 ran " + shorts.get() + " of " + sentShorts + " Short and " + longs.get()
                        + " of 1 Long handlers");
                client.barrier();
                assertEquals(sentShorts, shorts.get(), "Short handlers run");
                assertEquals(1, longs.get(), "Long handlers run: the timed-out one sent nothing");
            }
        });
    }
}
