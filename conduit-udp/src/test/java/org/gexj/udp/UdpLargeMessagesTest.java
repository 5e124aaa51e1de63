package org.gexj.udp;

import org.gexj.Client;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.launch.InProcessJob;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the udp conduit carries, as a user sends it: a Medium of the largest default size (65000 B, as GASNet's udp, in
 * one datagram; 65536 B in two with {@code GEX_AM_MAX_MEDIUM=65536}), a Long of 24 MiB (GASNet's udp-conduit stops at
 * 65000 B), and an RMA put and get of 8 MiB (RMA over AM, in Medium chunks of one datagram each); every byte checked
 * where it lands. The counters are read through {@link Client#conduitCounters()}, during the job and after its
 * close, and account for the traffic and for what the checksums covered.
 */
class UdpLargeMessagesTest {
    private static final long SEGMENT = 64L << 20;
    private static final int LONG = 24 << 20;
    private static final int RMA = 8 << 20;
    private static final long LONG_DEST = 32L << 20;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void largeMediumLongAndRmaArriveWhole() {
        largeMediumLongAndRma(Map.of("GEX_CONDUIT", "udp"), 65000, 1);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aMediumRaisedBeyondOneDatagramArrivesWholeInTwo() {
        // and with the whole of every datagram checksummed, as across a link
        largeMediumLongAndRma(Map.of("GEX_CONDUIT", "udp", "GEX_AM_MAX_MEDIUM", "65536",
            "GEX_UDP_CHECKSUM", "datagram"), 65536, 2);
    }

    private static void largeMediumLongAndRma(Map<String, String> env, int maxMedium, int mediumDatagrams) {
        final Client[] clients = new Client[2];
        final AtomicReference<String> medium = new AtomicReference<>();
        final AtomicReference<String> longs = new AtomicReference<>();
        InProcessJob.run(2, Duration.ofSeconds(100), env, client -> {
            clients[client.rank()] = client;
            final Am am = Am.of(client);
            assertEquals(maxMedium, am.lubRequestMedium());
            assertTrue(am.lubRequestLong() >= (1L << 30) - 1024, "Long limit " + am.lubRequestLong());
            final MemorySegment segment = client.attachSegment(SEGMENT).memory();
            final int mediumHandler = am.register(AmHandler.mediumRequest(1, (token, payload, args) -> {
                final StringBuilder bad = new StringBuilder();
                if (payload.length() != maxMedium) {
                    bad.append("length ").append(payload.length());
                }
                for (int i = 0; i < payload.length() && bad.isEmpty(); i++) {
                    if (payload.getByte(i) != pattern(args.get(0), i)) {
                        bad.append("byte ").append(i);
                    }
                }
                medium.set(bad.isEmpty() ? "ok" : bad.toString());
            }));
            final int longHandler = am.register(AmHandler.longRequest(1, (token, payload, args) -> {
                final StringBuilder bad = new StringBuilder();
                if (payload.length() != LONG || payload.segmentOffset() != LONG_DEST) {
                    bad.append("length ").append(payload.length()).append(" at ").append(payload.segmentOffset());
                }
                for (int i = 0; i < LONG && bad.isEmpty(); i++) {
                    if (segment.get(ValueLayout.JAVA_BYTE, LONG_DEST + i) != pattern(args.get(0), i)) {
                        bad.append("byte ").append(i);
                    }
                }
                longs.set(bad.isEmpty() ? "ok" : bad.toString());
            }));
            final Rma rma = Rma.of(client);
            client.barrier();
            if (client.rank() == 0) {
                final Map<String, Long> before = client.conduitCounters();
                for (int i = 0; i < LONG; i++) {
                    segment.set(ValueLayout.JAVA_BYTE, i, pattern(7, i));
                }
                final Map<String, Long> beforeMedium = client.conduitCounters();
                am.requestMedium(1, mediumHandler, segment, 0, maxMedium, Lc.NOW, 7);
                assertEquals(mediumDatagrams, dataDatagrams(beforeMedium, client.conduitCounters()),
                    "datagrams of a " + maxMedium + "-byte Medium");
                final Map<String, Long> beforePut = client.conduitCounters();
                rma.put(1, LONG_DEST, segment, 0, 4L * maxMedium);
                assertEquals(4L * mediumDatagrams, dataDatagrams(beforePut, client.conduitCounters()),
                    "datagrams of a put of 4 Medium chunks");
                am.requestLong(1, longHandler, segment, 0, LONG, LONG_DEST, Lc.NOW, 7);
                try (Arena arena = Arena.ofShared()) {
                    final MemorySegment src = arena.allocate(RMA);
                    final MemorySegment back = arena.allocate(RMA);
                    for (int i = 0; i < RMA; i++) {
                        src.set(ValueLayout.JAVA_BYTE, i, pattern(9, i));
                    }
                    rma.put(1, 0, src, 0, RMA);
                    rma.get(back, 0, 1, 0, RMA);
                    assertEquals(-1, src.mismatch(back), "8 MiB put then get came back different");
                }
                final Map<String, Long> after = client.conduitCounters();
                final long bytes = after.get("udp.bytes.sent") - before.get("udp.bytes.sent");
                assertTrue(bytes >= LONG + 2L * RMA / 2 + maxMedium, "bytes sent " + bytes);
                final long datagrams = after.get("udp.datagrams.sent") - before.get("udp.datagrams.sent");
                assertTrue(datagrams >= (LONG + RMA) / 65507, "datagrams sent " + datagrams);
            }
            client.barrier();
            if (client.rank() == 1) {
                assertEquals("ok", medium.get(), "the " + maxMedium + "-byte Medium");
                assertEquals("ok", longs.get(), "the 24 MiB Long");
                for (int i = 0; i < RMA; i += 4093) {
                    assertEquals(pattern(9, i), segment.get(ValueLayout.JAVA_BYTE, i), "put byte " + i);
                }
            }
        });
        final Map<String, Long> closed = clients[1].conduitCounters();
        assertTrue(closed.get("udp.frames.delivered") >= 2, "counters after close: " + closed);
        assertEquals(0L, closed.get("udp.dropped.checksum"), closed.toString());
        // on loopback the default (auto) checksums every datagram's header only; datagram none
        final boolean auto = !env.containsKey("GEX_UDP_CHECKSUM");
        for (Client c : clients) {
            final Map<String, Long> counters = c.conduitCounters();
            assertEquals(auto ? counters.get("udp.datagrams.sent") : 0L, counters.get("udp.checksum.header-only"),
                "rank " + c.rank() + ": " + counters);
        }
    }

    /** DATA datagrams sent between two readings of the counters: first sends, without acknowledgements and resends. */
    private static long dataDatagrams(Map<String, Long> before, Map<String, Long> after) {
        return delta(before, after, "udp.datagrams.sent") - delta(before, after, "udp.acks.sent")
            - delta(before, after, "udp.retransmitted");
    }

    private static long delta(Map<String, Long> before, Map<String, Long> after, String counter) {
        return after.get(counter) - before.get(counter);
    }

    private static byte pattern(int seed, long i) {
        return (byte) ((i * 31 + seed * 17 + (i >>> 11)) & 0xFF);
    }
}
