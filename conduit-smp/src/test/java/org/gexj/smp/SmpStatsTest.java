package org.gexj.smp;

import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.launch.InProcessJob;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code Client.stats()} counts a known traffic pattern exactly, on both ranks: rank 0 sends 5 Short, 3 Medium of 100
 * bytes and 2 Long of 1000 bytes, each answered by a reply of its kind (Short, Medium of 10 bytes, Long of 20), and
 * starts 4 puts and 2 gets of 64 bytes (blocking, NB, NBI); the counters stay readable after close.
 */
class SmpStatsTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aKnownPatternIsCountedExactly() {
        final Map<Integer, Map<String, Long>> after = new ConcurrentHashMap<>();
        InProcessJob.run(2, Duration.ofSeconds(50), Map.of("GEX_CONDUIT", "smp", "GEX_STATS", "1"), client -> {
            final Am am = Am.of(client);
            final Rma rma = Rma.of(client);
            final MemorySegment segment = client.attachSegment(1 << 16).memory();
            final MemorySegment src = Arena.ofShared().allocate(1000);
            final AtomicInteger replies = new AtomicInteger();
            final int shortReply = am.register(AmHandler.shortReply(0, (t, a) -> replies.incrementAndGet()));
            final int mediumReply = am.register(AmHandler.mediumReply(0, (t, p, a) -> replies.incrementAndGet()));
            final int longReply = am.register(AmHandler.longReply(0, (t, p, a) -> replies.incrementAndGet()));
            final int shortRequest = am.register(AmHandler.shortRequest(0, (t, a) -> t.replyShort(shortReply)));
            final int mediumRequest = am.register(AmHandler.mediumRequest(0,
                (t, p, a) -> t.replyMedium(mediumReply, src, 0, 10, Lc.NOW)));
            final int longRequest = am.register(AmHandler.longRequest(0,
                (t, p, a) -> t.replyLong(longReply, src, 0, 20, 4096, Lc.NOW)));
            client.barrier();
            if (client.rank() == 0) {
                for (int i = 0; i < 5; i++) {
                    am.requestShort(1, shortRequest);
                }
                for (int i = 0; i < 3; i++) {
                    am.requestMedium(1, mediumRequest, src, 0, 100, Lc.NOW);
                }
                for (int i = 0; i < 2; i++) {
                    am.requestLong(1, longRequest, src, 0, 1000, 0, Lc.NOW);
                }
                while (replies.get() < 10) {
                    client.poll();
                }
                rma.put(1, 8192, src, 0, 64);
                rma.put(1, 8192, src, 0, 64);
                rma.putNb(1, 8192, src, 0, 64, Lc.NOW).await();
                rma.putNbi(1, 8192, src, 0, 64, Lc.NOW);
                rma.get(src, 0, 1, 8192, 64);
                rma.getNb(src, 0, 1, 8192, 64).await();
                client.nbiWait(org.gexj.Ec.PUT);
            }
            client.barrier();
            client.close();
            after.put(client.rank(), client.stats());
            assertEquals(segment.byteSize(), 1 << 16);
        });
        final Map<String, Long> sender = after.get(0);
        final Map<String, Long> target = after.get(1);
        expect(sender, "am.sent.short.request", 5, "am.sent.medium.request", 3, "am.sent.long.request", 2,
            "am.received.short.reply", 5, "am.received.medium.reply", 3, "am.received.long.reply", 2,
            "am.sent.short.reply", 0, "am.received.short.request", 0,
            "am.bytes.sent", 3 * 100 + 2 * 1000, "am.bytes.received", 3 * 10 + 2 * 20,
            "rma.put.blocking", 2, "rma.put.nb", 1, "rma.put.nbi", 1, "rma.get.blocking", 1, "rma.get.nb", 1,
            "rma.get.nbi", 0, "rma.bytes.put", 4 * 64, "rma.bytes.get", 2 * 64);
        expect(target, "am.received.short.request", 5, "am.received.medium.request", 3,
            "am.received.long.request", 2, "am.sent.short.reply", 5, "am.sent.medium.reply", 3,
            "am.sent.long.reply", 2, "am.sent.short.request", 0, "am.bytes.sent", 3 * 10 + 2 * 20,
            "am.bytes.received", 3 * 100 + 2 * 1000, "rma.put.blocking", 0, "rma.bytes.get", 0);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void withoutGexStatsTheLayersCountNothing() {
        final Map<Integer, Map<String, Long>> after = new ConcurrentHashMap<>();
        InProcessJob.run(2, Duration.ofSeconds(50), Map.of("GEX_CONDUIT", "smp"), client -> {
            final Am am = Am.of(client);
            final AtomicInteger got = new AtomicInteger();
            final int request = am.register(AmHandler.shortRequest(0, (t, a) -> got.incrementAndGet()));
            client.barrier();
            am.requestShort(1 - client.rank(), request);
            while (got.get() < 1) {
                client.poll();
            }
            client.barrier();
            after.put(client.rank(), client.stats());
        });
        assertEquals(0L, after.get(0).get("am.sent.short.request"), after.get(0).toString());
        assertEquals(0L, after.get(1).get("am.received.short.request"), after.get(1).toString());
    }

    private static void expect(Map<String, Long> stats, Object... nameValue) {
        for (int i = 0; i < nameValue.length; i += 2) {
            assertEquals(((Number) nameValue[i + 1]).longValue(), stats.get((String) nameValue[i]),
                nameValue[i] + " in " + stats);
        }
    }
}
