package org.gexj.testkit;

import org.gexj.BufferDescriptor;
import org.gexj.GexException;
import org.gexj.Registration;
import org.gexj.launch.InProcessJob;
import org.gexj.rma.Completion;
import org.gexj.rma.Pwc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Puts and gets with completion into and out of registrations reached by key (RDMA conduits with keyed registrations):
 * the data goes by RDMA (writes with immediates where the conduit has them, reads), the completions as over AM. Where
 * the NIC refuses one operation alone, a read of a closed registration fails the initiator's local completion naming
 * the rank and the range, the producer delivers nothing for it, and the next get by key works.
 */
public final class PwcByKey {
    private static final int BYTES = 100_000;

    private PwcByKey() {
    }

    private static byte pattern(int rank, long i) {
        return (byte) (rank * 31 + i * 7 + (i >>> 9));
    }

    /**
     * Rank 0 puts with completion into rank 1's registration and gets with completion out of it, by its descriptor's
     * key; rank 1 checks each remote completion once its data is visible.
     *
     * @param env      the conduit's settings, with keyed registrations
     * @param writes   whether puts go by RDMA writes with immediates (else over AM: no immediates)
     * @param refusals whether to check the NIC's refusal of a closed registration's read, which only a NIC that
     *                 refuses one operation alone survives
     * @param timeout  the job's
     */
    public static void run(Map<String, String> env, boolean writes, boolean refusals, Duration timeout) {
        final AtomicReference<BufferDescriptor[]> shared = new AtomicReference<>();
        InProcessJob.run(2, timeout, env, client -> {
            final Pwc pwc = Pwc.of(client);
            final Completion c = new Completion();
            client.attachSegment(1 << 16);
            try (Arena arena = Arena.ofShared()) {
                final MemorySegment mine = arena.allocate(2L * BYTES);
                for (long i = 0; i < BYTES; i++) {
                    mine.set(ValueLayout.JAVA_BYTE, BYTES + i, pattern(client.rank(), i));
                }
                final MemorySegment gone = arena.allocate(BYTES);
                final Registration open = client.register(mine);
                final Registration closed = client.register(gone);
                if (client.rank() == 1) {
                    shared.set(new BufferDescriptor[] {open.descriptor(), closed.descriptor()});
                    closed.close();
                }
                client.barrier();
                if (client.rank() == 0) {
                    final BufferDescriptor[] d = shared.get();
                    assertTrue(d[0].keyed(), d[0].toString());
                    final MemorySegment src = arena.allocate(BYTES);
                    for (long i = 0; i < BYTES; i++) {
                        src.set(ValueLayout.JAVA_BYTE, i, pattern(0, i));
                    }
                    final MemorySegment data = arena.allocate(8).fill((byte) 5);
                    pwc.putWithCompletion(d[0], 0, src, 0, BYTES, 1, 21, data, 0);
                    pwc.awaitLocal(c);
                    assertEquals(1, c.id());
                    final MemorySegment dst = arena.allocate(BYTES);
                    pwc.getWithCompletion(dst, 0, d[0], BYTES, BYTES, 2, 22, 0);
                    pwc.awaitLocal(c);
                    assertEquals(2, c.id());
                    for (long i = 0; i < BYTES; i++) {
                        if (dst.get(ValueLayout.JAVA_BYTE, i) != pattern(1, i)) {
                            throw new AssertionError("byte " + i + " read from rank 1's registration");
                        }
                    }
                    final Map<String, Long> stats = client.stats();
                    assertEquals(writes ? 1L : 0L, stats.get("pwc.rdma.writes"), stats.toString());
                    assertEquals(1L, stats.get("pwc.rdma.reads"), stats.toString());
                    if (refusals) {
                        pwc.getWithCompletion(dst, 0, d[1], 0, BYTES, 3, 23, 0);
                        refused(pwc, c, "get with completion from", "[0, " + BYTES + ")", "NIC refused");
                        dst.fill((byte) 0);
                        pwc.getWithCompletion(dst, 0, d[0], BYTES, BYTES, 4, -1, Pwc.NO_RCE);
                        pwc.awaitLocal(c);
                        assertEquals(4, c.id());
                        assertEquals(pattern(1, BYTES - 1), dst.get(ValueLayout.JAVA_BYTE, BYTES - 1));
                        assertEquals(3L, client.stats().get("pwc.rdma.reads")); // the refused one too
                    }
                    pwc.putWithCompletion(1, 0, null, 0, 0, 5, 99, Pwc.NO_LCE); // a marker, over AM
                } else {
                    final Set<Long> remotes = new HashSet<>();
                    while (!remotes.contains(99L)) {
                        pwc.awaitRemote(c);
                        assertTrue(remotes.add(c.id()), "remote " + c.id() + " twice");
                        if (c.id() == 21) {
                            assertEquals(8, c.dataLength());
                            for (long i = 0; i < BYTES; i++) {
                                if (mine.get(ValueLayout.JAVA_BYTE, i) != pattern(0, i)) {
                                    throw new AssertionError("byte " + i + " put into the registration");
                                }
                            }
                        }
                    }
                    assertEquals(Set.of(21L, 22L, 99L), remotes, "nothing for the refused operations");
                }
                client.barrier();
                assertFalse(pwc.probeRemote(c), "a remote completion after all: " + c);
                client.barrier();
                open.close();
            }
        });
    }

    private static void refused(Pwc pwc, Completion c, String... named) {
        final GexException e = assertThrows(GexException.class, () -> pwc.awaitLocal(c));
        final String message = String.valueOf(e.getCause() == null ? e.getMessage() : e.getCause().getMessage());
        for (String part : named) {
            assertTrue(message.contains(part), "'" + part + "' in: " + message);
        }
        assertTrue(message.contains("rank 1 refused"), message);
    }
}
