package org.gexj.rdma.loopback;

import org.gexj.launch.InProcessJob;
import org.gexj.rdma.RdmaSettings;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine's registration cache on a NIC that needs local registration and checks it (the loopback refuses a
 * descriptor that does not cover the memory, or whose memory's arena was closed): a buffer used again is registered
 * once; a buffer of a new arena at a closed one's address gets a registration of its own; {@code GEX_REG_CACHE_BYTES=0}
 * registers per operation. Every operation moves the right bytes.
 */
class LoopbackRegistrationCacheTest {
    private static final String PREFIX = "rdma-loopback.registration.cache.";
    /** Above what a blocking put copies into a bounce buffer, so the NIC reads the caller's memory. */
    private static final int BYTES = 20_000;
    private static final int ROUNDS = 50;

    @Test
    void aBufferUsedAgainIsRegisteredOnceAndANewArenaAtItsAddressAgain() {
        final Map<String, Long> counters = run("64M");
        assertEquals(2, counters.get(PREFIX + "misses"), counters.toString());
        assertEquals(4L * ROUNDS - 2, counters.get(PREFIX + "hits"), counters.toString());
        assertTrue(counters.get(PREFIX + "releases") >= 1, "the closed arena's registration was released: "
            + counters);
    }

    @Test
    void aCacheOfZeroBytesRegistersPerOperation() {
        final Map<String, Long> counters = run("0");
        assertEquals(4L * ROUNDS, counters.get(PREFIX + "misses"), counters.toString());
        assertEquals(0, counters.get(PREFIX + "hits"), counters.toString());
        assertEquals(0, counters.get(PREFIX + "bytes"), counters.toString());
    }

    /** Rank 0's counters after it put and got {@link #ROUNDS} times from one arena, then as often from a new one. */
    private static Map<String, Long> run(String cacheBytes) {
        final Map<String, Long> rank0 = new ConcurrentHashMap<>();
        InProcessJob.run(2, Duration.ofSeconds(60), Map.of("GEX_CONDUIT", "rdma-loopback",
            RdmaSettings.REGISTRATION_CACHE, cacheBytes), client -> {
                client.attachSegment(1 << 20);
                final Rma rma = Rma.of(client);
                if (client.rank() == 0) {
                    for (int arenaRound = 0; arenaRound < 2; arenaRound++) {
                        try (Arena arena = Arena.ofShared()) {
                            final MemorySegment buffer = arena.allocate(BYTES, 4096);
                            for (int i = 0; i < ROUNDS; i++) {
                                final byte value = (byte) (arenaRound * 100 + i);
                                buffer.fill(value);
                                rma.put(1, 0, buffer, 0, BYTES);
                                buffer.fill((byte) 0);
                                rma.get(buffer, 0, 1, 0, BYTES);
                                check(buffer, value);
                            }
                        }
                    }
                    rank0.putAll(client.conduitCounters());
                }
                client.barrier();
            });
        return rank0;
    }

    private static void check(MemorySegment buffer, byte value) {
        for (long i = 0; i < BYTES; i++) {
            if (buffer.get(ValueLayout.JAVA_BYTE, i) != value) {
                throw new AssertionError("byte " + i + " is " + buffer.get(ValueLayout.JAVA_BYTE, i) + ", not "
                    + value);
            }
        }
    }
}
