package org.gexj.ofi;

import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.launch.InProcessJob;
import org.gexj.spi.Capabilities;
import org.gexj.testkit.Patterns;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On ofi every Long a frame holds travels packed by default (its providers carry a write as another message, so a
 * write and an envelope cost two), larger ones are reassembled; {@code GEX_AMLONG_PACKED_MAX} still sets the limit.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OfiLongProtocolTest {
    private static final long SEGMENT = 1 << 20;
    private static final int SEED = 7;

    @ParameterizedTest
    @ValueSource(strings = {"tcp;ofi_rxm", "shm"})
    void longsAFrameHoldsArePackedByDefaultAndArriveIntact(String provider) {
        InProcessJob.run(2, Duration.ofSeconds(40), Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", provider),
            client -> {
                final Capabilities c = client.capabilities();
                assertEquals(c.maxPackedLong(), c.packedLongDefault(), "ofi packs every Long a frame holds");
                final Am am = Am.of(client);
                assertEquals("packed", am.longProtocol(8192), "an 8 KiB Long");
                // the largest packed Long: the frame less the envelope's header and arguments
                long lo = 8192;
                long hi = c.maxPackedLong() + 1;
                while (hi - lo > 1) {
                    final long mid = (lo + hi) >>> 1;
                    if (am.longProtocol(mid).equals("packed")) {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                final long packed = lo;
                assertTrue(packed > c.maxPackedLong() - 128, "packed up to " + packed + " bytes, frame "
                    + c.maxPackedLong());
                assertEquals("reassembly", am.longProtocol(packed + 1), "a Long of " + (packed + 1) + " bytes");
                // the handler's check: -2 before it runs, then the first wrong byte's offset or -1
                final AtomicLong mismatch = new AtomicLong(-2);
                final AtomicLong length = new AtomicLong();
                final MemorySegment[] mine = new MemorySegment[1];
                final int handler = am.register(AmHandler.longRequest(1, (token, payload, args) -> {
                    length.set(payload.length());
                    mismatch.set(Patterns.firstMismatch(mine[0], payload.segmentOffset(), payload.length(), SEED));
                }));
                final MemorySegment segment = client.attachSegment(SEGMENT).memory();
                mine[0] = segment;
                client.barrier();
                if (client.rank() == 0) {
                    Patterns.fill(segment, 0, packed, SEED);
                    am.requestLong(1, handler, segment, 0, packed, 4096, Lc.NOW, 0);
                } else {
                    final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    while (mismatch.get() == -2 && System.nanoTime() - end < 0) {
                        client.poll();
                    }
                    assertEquals(packed, length.get(), "the packed Long's length at the target");
                    assertEquals(-1, mismatch.get(), "the first wrong byte of the packed Long at the target");
                }
                client.barrier();
            });
    }

    @Test
    void thePackedLimitStillComesFromTheSetting() {
        InProcessJob.run(2, Duration.ofSeconds(40), Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm",
            "GEX_AMLONG_PACKED_MAX", "4096"), client -> {
                final Am am = Am.of(client);
                assertEquals("packed", am.longProtocol(4096), "a 4 KiB Long");
                assertEquals("reassembly", am.longProtocol(4097), "a Long of 4097 bytes");
                assertEquals("reassembly", am.longProtocol(8192), "an 8 KiB Long");
                client.barrier();
            });
    }
}
