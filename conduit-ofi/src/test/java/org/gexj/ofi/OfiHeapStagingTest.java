package org.gexj.ofi;

import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.rdma.RdmaEngine;
import org.gexj.rma.Rma;
import org.gexj.testkit.ConduitKit;
import org.gexj.testkit.Patterns;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Heap memory is staged through the bounce buffers, in chunks of {@link RdmaEngine.BOUNCE_BYTES}, and counted:
 * {@code ofi.staged.operations} and {@code ofi.staged.bytes} grow by each heap put, get and AM Long payload, and not
 * by native memory (the kits check the data of every form and size; see RmaConformanceKit and AmConformanceKit).
 */
class OfiHeapStagingTest extends ConduitKit {
    private static final long SEGMENT = 1 << 20;

    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }

    @Test
    void heapOperationsAreStagedAndCountedNativeOnesAreNot() {
        exactJob(2, client -> {
            final Rma rma = Rma.of(client);
            final Am am = Am.of(client);
            client.attachSegment(SEGMENT);
            final AtomicInteger longs = new AtomicInteger();
            final int handler = am.register(AmHandler.longRequest(0, (t, p, a) -> longs.incrementAndGet()));
            client.barrier();
            final int peer = (client.rank() + 1) % 2;
            final long base = (long) client.rank() * (SEGMENT / 2);
            final int n = 3 * RdmaEngine.BOUNCE_BYTES + 5;
            final MemorySegment nativeMemory = Arena.ofAuto().allocate(n);
            final MemorySegment heap = MemorySegment.ofArray(new byte[n]);
            assertEquals(Map.of("ofi.staged.operations", 0L, "ofi.staged.bytes", 0L), staged(client));
            rma.put(peer, base, nativeMemory, 0, n);
            rma.get(nativeMemory, 0, peer, base, n);
            assertEquals(Map.of("ofi.staged.operations", 0L, "ofi.staged.bytes", 0L), staged(client),
                "native memory moves without staging");
            Patterns.fill(heap, 0, n, 9 + client.rank());
            rma.put(peer, base, heap, 0, n);
            heap.fill((byte) 0);
            rma.get(heap, 0, peer, base, n);
            assertEquals(-1, Patterns.firstMismatch(heap, 0, n, 9 + client.rank()));
            assertEquals(Map.of("ofi.staged.operations", 2L, "ofi.staged.bytes", 2L * n), staged(client),
                "a heap put and a heap get of " + n + " bytes");
            assertEquals(Am.OK, am.requestLong(peer, handler, heap, 1, n - 1, base, Lc.NOW));
            assertEquals(Map.of("ofi.staged.operations", 3L, "ofi.staged.bytes", 3L * n - 1), staged(client),
                "and an AM Long payload of " + (n - 1) + " bytes");
            while (longs.get() == 0) {
                client.poll();
            }
            client.barrier();
        });
    }

    /** The staging counters: the conduit counts other things too (drops by cause). */
    private static Map<String, Long> staged(org.gexj.Client client) {
        final Map<String, Long> m = new java.util.TreeMap<>(client.conduitCounters());
        m.keySet().removeIf(k -> !k.startsWith("ofi.staged."));
        return m;
    }
}
