package org.gexj.testkit.emu;

import org.gexj.Ec;
import org.gexj.Event;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The library's data path over emu allocates nothing in steady state, on the initiator's thread or the target's: AM
 * round trips of every category, Long payloads packed and apart (put-with-immediate and reassembly, or put-sync-send)
 * with every local-completion option, and native RMA blocking, NB and NBI, with unordered delivery, hold-backs and
 * pooled send buffers in between.
 */
class EmuAllocationTest {
    private static final int WARMUP = 50_000;
    private static final int MEASURED = 50_000;

    /** Updated by the handlers, so that they capture nothing per message. */
    static final class Counter {
        int value;
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void steadyStateAmAndRmaOverEmuAllocateNothingOnEitherSide() {
        run("reassembly");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void putSyncSendAllocatesNothingEither() {
        run("putsyncsend");
    }

    private static void run(String protocol) {
        final Map<String, Long> bytes = new ConcurrentHashMap<>();
        InProcessJob.run(2, Duration.ofSeconds(280), Map.of("GEX_CONDUIT", "emu", "GEX_AMLONG_PROTOCOL", protocol),
            client -> {
            final Am am = Am.of(client);
            final Rma rma = Rma.of(client);
            final MemorySegment segment = client.attachSegment(1 << 20).memory();
            final MemorySegment src = Arena.ofShared().allocate(16384);
            final MemorySegment dst = Arena.ofShared().allocate(16384);
            final Lc lc = Lc.event();
            final Lc putLc = Lc.event();
            final Counter replies = new Counter();
            final int pongShort = am.register(AmHandler.shortReply(1, (t, a) -> replies.value++));
            final int pongMedium = am.register(AmHandler.mediumReply(1, (t, p, a) -> replies.value++));
            final int pongLong = am.register(AmHandler.longReply(1, (t, p, a) -> replies.value++));
            final int pingShort = am.register(AmHandler.shortRequest(1, (t, a) -> t.replyShort(pongShort, a.get(0))));
            final int pingMedium = am.register(AmHandler.mediumRequest(1,
                (t, p, a) -> t.replyMedium(pongMedium, p, 0, p.length(), Lc.NOW, a.get(0))));
            final int pingLong = am.register(AmHandler.longRequest(1,
                (t, p, a) -> t.replyLong(pongLong, segment, p.segmentOffset(), p.length(), 65536, Lc.NOW, a.get(0))));
            client.barrier();
            for (int phase = 0; phase < 2; phase++) {
                final int n = phase == 0 ? WARMUP : MEASURED;
                client.barrier();
                final long before = ThreadAllocation.bytes();
                if (client.rank() == 0) {
                    for (int i = 0; i < n; i++) {
                        replies.value = 0;
                        switch (i % 8) {
                            case 0 -> am.requestShort(1, pingShort, i);
                            case 1 -> am.requestMedium(1, pingMedium, src, 0, 256, Lc.NOW, i);
                            case 2 -> am.requestLong(1, pingLong, src, 0, 2048, 0, Lc.NOW, i);
                            case 3 -> am.requestLong(1, pingLong, src, 0, 8192, 0, Lc.NOW, i);
                            case 4 -> {
                                am.requestLong(1, pingLong, src, 0, 8192, 0, Lc.GROUP, i);
                                am.nbiWait(Ec.AM);
                            }
                            case 5 -> {
                                am.requestLong(1, pingLong, src, 0, 8192, 0, lc, i);
                                lc.lastEvent().await();
                            }
                            case 6 -> {
                                rma.put(1, 16384, src, 0, 512);
                                rma.get(dst, 0, 1, 16384, 512);
                                replies.value = 1;
                            }
                            default -> {
                                final Event put = rma.putNb(1, 16384, src, 0, 4096, putLc);
                                putLc.lastEvent().await();
                                rma.getNb(dst, 0, 1, 20480, 4096).await();
                                put.await();
                                rma.putNbi(1, 24576, src, 0, 4096, Lc.DEFER);
                                rma.getNbi(dst, 4096, 1, 28672, 4096);
                                client.nbiWait(Ec.PUT | Ec.GET);
                                replies.value = 1;
                            }
                        }
                        while (replies.value == 0) {
                            client.poll();
                        }
                    }
                }
                client.barrier();
                if (phase == 1) {
                    bytes.put("rank " + client.rank(), ThreadAllocation.bytes() - before);
                }
            }
        });
        System.out.println("bytes allocated over " + MEASURED + " AM round trips and RMA calls over emu (" + protocol
            + "): " + bytes);
        // the barriers and the counter allocate a few hundred bytes per window; one allocation per message would be
        // at least 16 bytes x MEASURED
        bytes.forEach((rank, b) -> assertTrue(b < MEASURED / 10,
            rank + " allocated " + b + " bytes over " + MEASURED + " operations (" + (double) b / MEASURED + " B/op)"));
        assertEquals(2, bytes.size());
    }
}
