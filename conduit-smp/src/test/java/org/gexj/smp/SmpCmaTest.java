package org.gexj.smp;

import org.gexj.BufferDescriptor;
import org.gexj.Registration;
import org.gexj.launch.InProcessJob;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Which path moves registered memory on smp: Cross Memory Attach by default (one copy, counted by
 * {@code smp.cma.*}), the rings with {@code GEX_SMP_CMA=off}; the bytes are the same.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SmpCmaTest {
    private static final int BYTES = 1 << 20;
    private static final int ROUNDS = 3;

    @Test
    void crossMemoryAttachMovesRegisteredMemoryByDefault() {
        final Map<String, Long> counters = run(Map.of("GEX_CONDUIT", "smp", "GEX_SMP_CMA", "auto"), BYTES);
        assertEquals(ROUNDS, counters.get("smp.cma.puts"), counters.toString());
        assertEquals(ROUNDS, counters.get("smp.cma.gets"), counters.toString());
        assertEquals(2L * ROUNDS * BYTES, counters.get("smp.cma.bytes"), counters.toString());
    }

    @Test
    void offMovesItThroughTheRings() {
        final Map<String, Long> counters = run(Map.of("GEX_CONDUIT", "smp", "GEX_SMP_CMA", "off"), BYTES);
        assertEquals(0, counters.get("smp.cma.puts"), counters.toString());
        assertEquals(0, counters.get("smp.cma.bytes"), counters.toString());
    }

    /**
     * Rank 0's conduit counters after it put {@code bytes} into and got them from rank 1's registration
     * {@link #ROUNDS} times, in a job with {@code environment}; the bytes are checked each round.
     */
    static Map<String, Long> run(Map<String, String> environment, int bytes) {
        final Map<String, Long> rank0 = new ConcurrentHashMap<>();
        final AtomicReference<BufferDescriptor> shared = new AtomicReference<>();
        InProcessJob.run(2, Duration.ofSeconds(50), environment, client -> {
            final Rma rma = Rma.of(client);
            try (Arena arena = Arena.ofShared()) {
                final MemorySegment memory = arena.allocate(bytes);
                try (Registration registration = client.register(memory)) {
                    if (client.rank() == 1) {
                        shared.set(registration.descriptor());
                    }
                    client.barrier();
                    if (client.rank() == 0) {
                        final BufferDescriptor theirs = shared.get();
                        for (int round = 0; round < ROUNDS; round++) {
                            final byte value = (byte) (round + 1);
                            memory.fill(value);
                            rma.put(theirs, 0, memory, 0, bytes);
                            memory.fill((byte) 0);
                            rma.get(memory, 0, theirs, 0, bytes);
                            for (long i = 0; i < bytes; i += Math.max(1, bytes / 256)) {
                                assertEquals(value, memory.get(ValueLayout.JAVA_BYTE, i), "round " + round + " byte "
                                    + i);
                            }
                        }
                        rank0.putAll(client.conduitCounters());
                    }
                    client.barrier();
                }
            }
        });
        return rank0;
    }
}
