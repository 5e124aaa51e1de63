package org.gexj.testkit.emu;

import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.launch.InProcessJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The AM protocols' round trips under emu's wire latency L ({@code GEX_EMU_LATENCY_US}), from the model, as lower
 * bounds: a Short request's reply comes 2 L after the request at the earliest; a put-sync-send Long's handler runs 3 L
 * after the call at the earliest (the put, its completion's way back, the envelope), a reassembled Long's 1 L (payload
 * and envelope travel together); a Long round trip (request and Long reply) takes 6 L and 2 L. Only bounds and the
 * handlers' results are asserted, never a ratio of times: a busy machine makes anything later, never earlier.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EmuLatencyAmTest {
    private static final long LATENCY_US = 5_000;
    private static final long L = TimeUnit.MICROSECONDS.toNanos(LATENCY_US);
    private static final int ROUNDS = 5;
    private static final int BYTES = 4096;
    private static final long SEGMENT = 1 << 20;
    private static final int PING_SHORT = 140;
    private static final int PONG_SHORT = 141;
    private static final int PING_LONG = 142;
    private static final int PONG_LONG = 143;

    /**
     * Per round: when rank 0 sent, when rank 1's request handler ran, when rank 0's reply handler ran, when rank 0's
     * request call returned.
     */
    private record Times(AtomicLongArray sent, AtomicLongArray handled, AtomicLongArray answered,
                         AtomicLongArray returned) {
        Times() {
            this(new AtomicLongArray(ROUNDS), new AtomicLongArray(ROUNDS), new AtomicLongArray(ROUNDS),
                new AtomicLongArray(ROUNDS));
        }

        long least(AtomicLongArray to) {
            long least = Long.MAX_VALUE;
            for (int i = 0; i < ROUNDS; i++) {
                assertTrue(to.get(i) != 0, "round " + i + " did not finish");
                least = Math.min(least, to.get(i) - sent.get(i));
            }
            return least;
        }
    }

    /** Runs ROUNDS request-reply round trips from rank 0 to rank 1, Short or Long, one at a time. */
    private static Times roundTrips(String protocol, boolean longs) {
        final Times times = new Times();
        final Map<String, String> env = Map.of("GEX_CONDUIT", "emu", "GEX_EMU_LATENCY_US", Long.toString(LATENCY_US),
            "GEX_AMLONG_PROTOCOL", protocol, "GEX_AMLONG_PACKED_MAX", "0");
        InProcessJob.run(2, Duration.ofSeconds(60), env, client -> {
            final Am am = Am.of(client);
            final MemorySegment segment = client.attachSegment(SEGMENT).memory();
            am.register(PING_SHORT, AmHandler.shortRequest(1, (t, a) -> {
                times.handled().set(a.get(0), System.nanoTime());
                t.replyShort(PONG_SHORT, a.get(0));
            }));
            am.register(PONG_SHORT,
                AmHandler.shortReply(1, (t, a) -> times.answered().set(a.get(0), System.nanoTime())));
            am.register(PING_LONG, AmHandler.longRequest(1, (t, p, a) -> {
                times.handled().set(a.get(0), System.nanoTime());
                t.replyLong(PONG_LONG, segment, p.segmentOffset(), p.length(), SEGMENT / 2, Lc.NOW, a.get(0));
            }));
            am.register(PONG_LONG,
                AmHandler.longReply(1, (t, p, a) -> times.answered().set(a.get(0), System.nanoTime())));
            client.barrier();
            if (client.rank() == 0) {
                final MemorySegment src = Arena.ofAuto().allocate(BYTES);
                for (int i = 0; i < ROUNDS; i++) {
                    times.sent().set(i, System.nanoTime());
                    if (longs) {
                        am.requestLong(1, PING_LONG, src, 0, BYTES, 0, Lc.NOW, i);
                    } else {
                        am.requestShort(1, PING_SHORT, i);
                    }
                    times.returned().set(i, System.nanoTime());
                    while (times.answered().get(i) == 0) {
                        client.poll();
                    }
                }
            }
            client.barrier();
        });
        return times;
    }

    @Test
    void aShortRoundTripTakesTwoLatencies() {
        final Times t = roundTrips("reassembly", false);
        assertTrue(t.least(t.handled()) >= L, "Short request handled after " + t.least(t.handled()) + " ns");
        assertTrue(t.least(t.answered()) >= 2 * L, "Short reply after " + t.least(t.answered()) + " ns");
    }

    @Test
    void aPutSyncSendLongIsHandledAfterThreeLatenciesItsRoundTripAfterSix() {
        final Times t = roundTrips("putsyncsend", true);
        assertTrue(t.least(t.handled()) >= 3 * L, "handled after " + t.least(t.handled()) + " ns");
        assertTrue(t.least(t.answered()) >= 6 * L, "Long reply after " + t.least(t.answered()) + " ns");
    }

    /**
     * Also: the envelope travels beside the payload even with {@link Lc#NOW}, whose call waits for the put's round
     * trip after sending both, so the handler runs before the call returns. Asserted for one round of {@value #ROUNDS}
     * (the target's thread could be descheduled for L in one), and never the case if the envelope waited for the put
     * (then the handler ran 3 L after the call, 1 L after its return).
     */
    @Test
    void aReassembledLongIsHandledAfterOneLatencyItsRoundTripAfterTwo() {
        final Times t = roundTrips("reassembly", true);
        assertTrue(t.least(t.handled()) >= L, "handled after " + t.least(t.handled()) + " ns");
        assertTrue(t.least(t.answered()) >= 2 * L, "Long reply after " + t.least(t.answered()) + " ns");
        final StringBuilder rounds = new StringBuilder();
        boolean beforeReturn = false;
        for (int i = 0; i < ROUNDS; i++) {
            beforeReturn |= t.handled().get(i) < t.returned().get(i);
            final long sent = t.sent().get(i);
            rounds.append(String.format(Locale.ROOT, " [handled %.2f L, returned %.2f L]",
                (t.handled().get(i) - sent) / (double) L, (t.returned().get(i) - sent) / (double) L));
        }
        assertTrue(beforeReturn, "no request handler ran before its Lc.NOW call returned:" + rounds);
    }
}
