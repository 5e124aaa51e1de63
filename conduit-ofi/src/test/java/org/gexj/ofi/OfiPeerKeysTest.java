package org.gexj.ofi;

import org.gexj.BufferDescriptor;
import org.gexj.Registration;
import org.gexj.launch.InProcessJob;
import org.gexj.rma.Rma;
import org.gexj.testkit.RegisteredRoundTrips;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code GEX_OFI_PEER_KEYS}: whether registrations are registered with the provider for peers and reached by RDMA with
 * their keys. By default only where the provider refuses a bad access alone (sockets); {@code on} asks for it on any
 * provider (tcp here), {@code off} never; the bytes are the same either way.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OfiPeerKeysTest {
    private static final int BYTES = 3 * 65536 + 17;
    private static final int ROUNDS = 3;

    @Test
    void onTcpTheDefaultReachesRegistrationsOverActiveMessages() {
        final RegisteredRoundTrips.Result r = run("tcp;ofi_rxm", null);
        assertFalse(r.descriptor().keyed(), r.descriptor().toString());
        assertEquals(0, r.counters().get("ofi.registered.operations"), r.counters().toString());
        assertEquals(0, r.counters().get("ofi.registered.open"), r.counters().toString());
    }

    @Test
    void onAsksForKeysOnTcpAndEveryOperationGoesByRdma() {
        final RegisteredRoundTrips.Result r = run("tcp;ofi_rxm", "on");
        assertTrue(r.descriptor().keyed(), r.descriptor().toString());
        assertEquals(2L * ROUNDS, r.counters().get("ofi.registered.operations"), r.counters().toString());
        assertEquals(1, r.counters().get("ofi.registered.open"), "rank 0's own registration: " + r.counters());
    }

    @Test
    void socketsKeysByDefaultAndOffKeepsItOverActiveMessages() {
        final RegisteredRoundTrips.Result keyed = run("sockets", null);
        assertTrue(keyed.descriptor().keyed(), keyed.descriptor().toString());
        assertEquals(2L * ROUNDS, keyed.counters().get("ofi.registered.operations"), keyed.counters().toString());
        final RegisteredRoundTrips.Result off = run("sockets", "off");
        assertFalse(off.descriptor().keyed(), off.descriptor().toString());
        assertEquals(0, off.counters().get("ofi.registered.operations"), off.counters().toString());
    }

    /**
     * On sockets the provider is what refuses: a closed registration, a range a forged descriptor claims, a put into
     * read-only memory whose descriptor hides it; each fails that one operation naming the rank and the range, writes
     * nothing, and the endpoint still works (the kit's refusal test, by key).
     */
    @Test
    void socketsRefusesByKeyAndTheEndpointStillWorks() {
        final AtomicReference<BufferDescriptor[]> shared = new AtomicReference<>();
        InProcessJob.run(2, Duration.ofSeconds(100), Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "sockets"),
            client -> {
                final Rma rma = Rma.of(client);
                client.attachSegment(1 << 16);
                try (Arena arena = Arena.ofShared()) {
                    final MemorySegment open = arena.allocate(4096);
                    final MemorySegment readOnly = arena.allocate(4096);
                    final MemorySegment closed = arena.allocate(4096);
                    open.fill((byte) 7);
                    readOnly.fill((byte) 7);
                    final Registration o = client.register(open);
                    final Registration r = client.register(readOnly.asReadOnly());
                    final Registration c = client.register(closed);
                    if (client.rank() == 1) {
                        shared.set(new BufferDescriptor[] {o.descriptor(), r.descriptor(), c.descriptor()});
                        c.close();
                    }
                    client.barrier();
                    if (client.rank() == 0) {
                        final BufferDescriptor[] d = shared.get();
                        final MemorySegment local = arena.allocate(4096);
                        local.fill((byte) 1);
                        refused(() -> rma.put(d[2], 0, local, 0, 64), "put to", "[0, 64)");
                        refused(() -> rma.get(local, 0, d[2], 0, 64), "get from", "[0, 64)");
                        final BufferDescriptor forged = new BufferDescriptor(1, d[0].handle(), d[0].address(), 8192,
                            d[0].key(), d[0].flags());
                        refused(() -> rma.put(forged, 4090, local, 0, 12), "put to", "[4090, 4102)");
                        refused(() -> rma.getNb(local, 0, forged, 4096, 100).await(), "get from", "[4096, 4196)");
                        final BufferDescriptor hidden = new BufferDescriptor(1, d[1].handle(), d[1].address(), 4096,
                            d[1].key(), BufferDescriptor.KEYED);
                        refused(() -> rma.put(hidden, 0, local, 0, 12), "put to", "[0, 12)");
                        rma.get(local, 0, d[1], 0, 4096); // and what is allowed still works, by key
                        assertEquals(7, local.get(ValueLayout.JAVA_BYTE, 4095));
                        local.fill((byte) 1);
                        rma.put(d[0], 0, local, 0, 16);
                        rma.put(1, 0, local, 0, 16);
                        // the five refused and the two allowed went by key; the segment put is not counted
                        assertEquals(7, client.conduitCounters().get("ofi.registered.operations"),
                            client.conduitCounters().toString());
                    }
                    client.barrier();
                    if (client.rank() == 1) {
                        for (long b = 0; b < 4096; b++) {
                            assertEquals(b < 16 ? 1 : 7, open.get(ValueLayout.JAVA_BYTE, b), "open, byte " + b);
                            assertEquals(7, readOnly.get(ValueLayout.JAVA_BYTE, b), "read-only, byte " + b);
                        }
                    }
                    client.barrier();
                }
            });
    }

    private static void refused(Runnable call, String what, String range) {
        final org.gexj.GexException e = assertThrows(org.gexj.GexException.class, call::run);
        final String message = String.valueOf(e.getCause() == null ? e.getMessage() : e.getCause().getMessage());
        assertTrue(message.contains("rank 1 refused the " + what + " bytes " + range), message);
        assertTrue(message.contains("NIC refused"), message);
    }

    @Test
    void aBadSettingIsNamed() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> OfiSettings.from(org.gexj.Config.of(Map.of(OfiSettings.PEER_KEYS, "maybe")),
                java.net.InetAddress.getLoopbackAddress()));
        assertTrue(e.getMessage().contains("GEX_OFI_PEER_KEYS=maybe") && e.getMessage().contains("auto, on, off"),
            e.getMessage());
    }

    /** {@link #ROUNDS} registered round trips of {@link #BYTES} from rank 0 to rank 1 on {@code provider}. */
    private static RegisteredRoundTrips.Result run(String provider, String peerKeys) {
        final Map<String, String> env = new HashMap<>(Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", provider));
        if (peerKeys != null) {
            env.put(OfiSettings.PEER_KEYS, peerKeys);
        }
        return RegisteredRoundTrips.run(env, BYTES, ROUNDS);
    }
}
