package org.gexj.testkit;

import org.gexj.BufferDescriptor;
import org.gexj.Registration;
import org.gexj.launch.InProcessJob;
import org.gexj.rma.Rma;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A two-rank job in which rank 0 puts into and gets from rank 1's registration, checking every byte each round: for
 * conduit tests that ask which path moved registered memory (Cross Memory Attach, RDMA by key, AM) from the conduit's
 * counters and rank 1's descriptor.
 */
public final class RegisteredRoundTrips {
    /**
     * What the job left.
     *
     * @param descriptor rank 1's descriptor, as rank 0 used it
     * @param counters   rank 0's conduit counters after the last round, the registrations still open
     */
    public record Result(BufferDescriptor descriptor, Map<String, Long> counters) {
    }

    private RegisteredRoundTrips() {
    }

    /** {@code rounds} blocking puts of {@code bytes} into rank 1's registration, each followed by a get back. */
    public static Result run(Map<String, String> environment, int bytes, int rounds) {
        final Map<String, Long> rank0 = new ConcurrentHashMap<>();
        final AtomicReference<BufferDescriptor> shared = new AtomicReference<>();
        InProcessJob.run(2, Duration.ofSeconds(100), environment, client -> {
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
                        for (int round = 0; round < rounds; round++) {
                            for (long i = 0; i < bytes; i++) {
                                memory.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + round));
                            }
                            rma.put(theirs, 0, memory, 0, bytes);
                            memory.fill((byte) 0);
                            rma.get(memory, 0, theirs, 0, bytes);
                            for (long i = 0; i < bytes; i++) {
                                assertEquals((byte) (i * 7 + round), memory.get(ValueLayout.JAVA_BYTE, i),
                                    "round " + round + " byte " + i);
                            }
                        }
                        rank0.putAll(client.conduitCounters());
                    }
                    client.barrier();
                }
            }
        });
        return new Result(shared.get(), rank0);
    }
}
