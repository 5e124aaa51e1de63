package org.gexj.ofi;

import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.launch.InProcessJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ofi's Medium limit: 8192 bytes by default, as GASNet-EX's ofi-conduit, while its 16 KiB frame carries a Medium of
 * up to 16296 bytes once {@code GEX_AM_MAX_MEDIUM} asks for it. A Medium of the limit arrives whole, one byte more is
 * refused with the range and sends nothing: the good Medium is the only one that arrives.
 */
class OfiTcpMediumLimitTest {
    private static final Map<String, String> TCP = Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theDefaultMediumLimitIsGasnetOfis() {
        mediumOfTheLimit(TCP, OfiConduit.MAX_MEDIUM);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void gexAmMaxMediumRaisesItToTheFrame() {
        final Map<String, String> env = new HashMap<>(TCP);
        env.put("GEX_AM_MAX_MEDIUM", "16296");
        mediumOfTheLimit(env, 16296);
    }

    private static void mediumOfTheLimit(Map<String, String> env, long limit) {
        final ConcurrentLinkedQueue<String> arrived = new ConcurrentLinkedQueue<>();
        InProcessJob.run(2, Duration.ofSeconds(50), env, client -> {
            final Am am = Am.of(client);
            assertEquals(limit, am.lubRequestMedium());
            assertEquals(limit, am.maxRequestMedium(1 - client.rank(), 16));
            final MemorySegment segment = client.attachSegment(1 << 20).memory();
            final int handler = am.register(AmHandler.mediumRequest(1, (token, payload, args) -> {
                String bad = payload.length() == limit ? null : "length " + payload.length();
                for (int i = 0; i < payload.length() && bad == null; i++) {
                    if (payload.getByte(i) != (byte) (i * 31 + args.get(0))) {
                        bad = "byte " + i;
                    }
                }
                arrived.add(bad == null ? "ok " + args.get(0) : bad);
            }));
            client.barrier();
            if (client.rank() == 0) {
                for (int i = 0; i <= limit; i++) {
                    segment.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 5));
                }
                final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> am.requestMedium(1, handler, segment, 0, limit + 1, Lc.NOW, 4));
                assertTrue(refused.getMessage().contains((limit + 1) + " bytes outside [0, " + limit + "]"),
                    refused.getMessage());
                am.requestMedium(1, handler, segment, 0, limit, Lc.NOW, 5);
            }
            client.barrier();
            if (client.rank() == 1) {
                final long deadline = System.nanoTime() + 20_000_000_000L;
                while (arrived.isEmpty() && System.nanoTime() < deadline) {
                    client.poll();
                }
            }
            client.barrier(); // a Medium the refused call had sent, before the good one, would have arrived by now
            if (client.rank() == 1) {
                client.poll();
                assertEquals("[ok 5]", arrived.toString(), "the " + limit + "-byte Medium, and nothing else");
            }
            client.barrier();
        });
    }
}
