package org.gexj.testkit;

import org.gexj.BufferDescriptor;
import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.GexException;
import org.gexj.Lc;
import org.gexj.Registration;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RMA between registered memory ({@code Client.register}), part of {@link RmaConformanceKit}: every put and get form
 * moves the right bytes between registrations outside the segment, whose descriptors travel in AM Mediums; a range
 * outside the descriptor is refused at the initiator, and the owner refuses a closed registration, one whose arena
 * closed, a read-only one for puts and a range a forged descriptor claims, with an error naming the rank and the
 * range, having written nothing.
 */
public abstract class RegisteredRmaKit extends PwcKit {
    /** A part per put form: more than one Medium on every conduit, and odd, so chunks end off alignment. */
    private static final int PART = 150_001;
    private static final int FORMS = 3;

    /**
     * Whether the conduit reaches registrations by RDMA with the NIC key in their descriptors
     * ({@code BufferDescriptor.keyed}); the default, false: by AM or Cross Memory Attach.
     */
    protected boolean keyedRegistrations() {
        return false;
    }

    /**
     * Whether peers pull this conduit's registrations, so that Longs from them travel as rendezvous: where they are
     * keyed (an RDMA read) by default; subclasses with Cross Memory Attach say so.
     */
    protected boolean pullsRendezvous() {
        return keyedRegistrations();
    }

    /**
     * Long requests from registered memory with {@code GEX_AMLONG_RENDEZVOUS_MIN} set: where the conduit lets peers
     * pull registrations (smp with Cross Memory Attach, keyed registrations by RDMA read: {@link #pullsRendezvous})
     * they travel as rendezvous, each payload pulled, elsewhere as any Long; either way
     * each payload is in place before its handler runs, and each local completion (NOW, an event, GROUP) leaves the
     * source free to be rewritten at once.
     */
    @Test
    void longsFromRegisteredMemoryArriveWithTheRendezvousOn() {
        final long[] sizes = {4096, 65_539, 200_000};
        final long stride = 200_064;
        final int sends = sizes.length * 3;
        job(2, Map.of("GEX_AMLONG_RENDEZVOUS_MIN", "4096"), client -> {
            final Am am = Am.of(client);
            final MemorySegment segment = client.attachSegment(2 << 20).memory(); // sends * stride, whole pages
            final java.util.List<String> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
            final java.util.concurrent.atomic.AtomicInteger handled = new java.util.concurrent.atomic.AtomicInteger();
            final int handler = am.register(AmHandler.longRequest(2, (token, payload, args) -> {
                if (payload.length() != args.get(1)
                    || Patterns.firstMismatch(segment, payload.segmentOffset(), payload.length(), args.get(0)) >= 0) {
                    errors.add("Long of " + args.get(1) + " bytes from rank " + token.sourceRank() + " not in place");
                }
                handled.incrementAndGet();
            }));
            client.barrier();
            final int peer = (client.rank() + 1) % client.size();
            try (Arena arena = Arena.ofShared()) {
                final MemorySegment mine = arena.allocate(stride);
                try (Registration registration = client.register(mine)) {
                    int k = 0;
                    for (long wanted : sizes) {
                        final long size = Math.min(wanted, am.maxRequestLong(peer, 2)); // loopback: 64 KiB
                        for (Lc lc : new Lc[] {Lc.NOW, Lc.event(), Lc.GROUP}) {
                            final int seed = 1000 * client.rank() + k;
                            Patterns.fill(mine, 40, size, seed);
                            am.requestLong(peer, handler, mine, 40, size, k * stride, lc, seed, (int) size);
                            if (lc.isEvent()) {
                                lc.lastEvent().await();
                            } else if (lc == Lc.GROUP) {
                                am.nbiWait(Ec.AM);
                            }
                            mine.fill((byte) 0); // locally complete: the source may be reused
                            k++;
                        }
                    }
                    final long end = System.nanoTime() + 60_000_000_000L;
                    while (handled.get() < sends && System.nanoTime() < end) {
                        client.poll();
                    }
                    client.barrier(); // the peer has pulled from this registration before it closes
                }
            }
            assertEquals(sends, handled.get(), "handlers run");
            assertEquals(java.util.List.of(), errors);
            assertEquals(0L, client.stats().getOrDefault("am.rendezvous.refused", 0L), client.stats().toString());
            final long pulled = client.stats().getOrDefault("am.rendezvous.pulled", 0L);
            if (pullsRendezvous()) {
                assertEquals(sends, pulled, "payloads pulled: " + client.stats());
            } else {
                assertTrue(pulled == 0 || pulled == sends, "payloads pulled: " + client.stats());
            }
        });
    }

    private static byte pattern(int rank, int form, long i) {
        return (byte) (rank * 31 + form * 7 + i * 13 + (i >>> 9));
    }

    @Test
    void everyFormMovesTheRightBytesBetweenRegistrationsOfEveryRank() {
        job(2, client -> {
            final Rma rma = Rma.of(client);
            client.attachSegment(SEGMENT);
            final DescriptorExchange exchange = new DescriptorExchange(client);
            final int rank = client.rank();
            final int size = client.size();
            try (Arena arena = Arena.ofShared()) {
                final MemorySegment mine = arena.allocate(FORMS * PART + 8);
                final Registration registration = client.register(mine);
                final BufferDescriptor[] all = exchange.allOf(registration.descriptor());
                assertEquals(mine.byteSize(), all[rank].length());
                final BufferDescriptor target = all[(rank + 1) % size];
                final MemorySegment[] sources = {arena.allocate(PART), MemorySegment.ofArray(new byte[PART]),
                    arena.allocate(PART)};
                for (int form = 0; form < FORMS; form++) {
                    for (long i = 0; i < PART; i++) {
                        sources[form].set(ValueLayout.JAVA_BYTE, i, pattern(rank, form, i));
                    }
                }
                rma.put(target, 0, sources[0], 0, PART);
                final Event nb = rma.putNb(target, PART, sources[1], 0, PART, Lc.NOW);
                rma.putNbi(target, 2L * PART, sources[2], 0, PART, Lc.DEFER);
                rma.put(target, target.length(), null, 0, 0); // 0 bytes at the end: a no-op
                nb.await();
                client.nbiWait(Ec.PUT);
                client.barrier();
                final int writer = (rank + size - 1) % size;
                for (int form = 0; form < FORMS; form++) {
                    for (long i = 0; i < PART; i++) {
                        if (mine.get(ValueLayout.JAVA_BYTE, form * (long) PART + i) != pattern(writer, form, i)) {
                            throw new AssertionError("rank " + rank + ": byte " + i + " of form " + form
                                + " from rank " + writer + " is wrong");
                        }
                    }
                }
                client.barrier();
                // gets from the registration this rank wrote into, each form into another kind of buffer
                final MemorySegment[] back = {MemorySegment.ofArray(new byte[PART]), arena.allocate(PART),
                    arena.allocate(PART)};
                rma.get(back[0], 0, target, 0, PART);
                final Event got = rma.getNb(back[1], 0, target, PART, PART);
                rma.getNbi(back[2], 0, target, 2L * PART, PART);
                got.await();
                client.nbiWait(Ec.GET);
                for (int form = 0; form < FORMS; form++) {
                    assertEquals(-1, sources[form].mismatch(back[form]), "get of form " + form);
                }
                assertEquals(keyedRegistrations(), target.keyed(), "descriptor " + target);
                // each put and get by key, counted by the RDMA engine (<conduit>.registered.operations)
                final long byKey = client.conduitCounters().entrySet().stream()
                    .filter(c -> c.getKey().endsWith(".registered.operations")).mapToLong(Map.Entry::getValue).sum();
                if (keyedRegistrations()) {
                    assertEquals(2L * FORMS, byKey, "operations by key: " + client.conduitCounters());
                } else {
                    assertEquals(0, byKey, "operations by key: " + client.conduitCounters());
                }
                client.barrier(); // no rank reaches this one's registration any more
                registration.close();
                client.barrier();
            }
        });
    }

    @Test
    void rangesOutsideTheDescriptorAreRefusedAtTheCallWithNothingWritten() {
        exactJob(2, client -> {
            final Rma rma = Rma.of(client);
            client.attachSegment(SEGMENT);
            final DescriptorExchange exchange = new DescriptorExchange(client);
            try (Arena arena = Arena.ofShared()) {
                final MemorySegment mine = arena.allocate(1000);
                mine.fill((byte) 5);
                final Registration registration = client.register(mine);
                final BufferDescriptor[] all = exchange.allOf(registration.descriptor());
                final BufferDescriptor peer = all[1 - client.rank()];
                final MemorySegment local = arena.allocate(2000);
                assertMessage(() -> rma.put(peer, 999, local, 0, 2), "[999, 1001)", "[0, 1000)");
                assertMessage(() -> rma.putNbi(peer, -1, local, 0, 1, Lc.NOW), "-1");
                assertMessage(() -> rma.putNb(peer, 0, local, 0, 1001, Lc.NOW), "1001");
                assertMessage(() -> rma.get(local, 0, peer, 1, 1000), "[1, 1001)");
                assertMessage(() -> rma.getNb(local, 1999, peer, 0, 2), "2000");
                assertMessage(() -> rma.putNb(peer, 0, local, 0, 1, Lc.GROUP), "GROUP");
                assertMessage(() -> rma.put(new BufferDescriptor(2, peer.handle(), 0, 1000, 0), 0, local, 0, 1),
                    "rank 2");
                assertThrows(NullPointerException.class, () -> rma.put((BufferDescriptor) null, 0, local, 0, 1));
                assertThrows(NullPointerException.class, () -> rma.getNbi(local, 0, (BufferDescriptor) null, 0, 1));
                client.barrier();
                for (long i = 0; i < mine.byteSize(); i++) {
                    assertEquals(5, mine.get(ValueLayout.JAVA_BYTE, i), "byte " + i + " changed by a refused call");
                }
                client.barrier();
            }
        });
    }

    @Test
    void theOwnerRefusesWhatItNoLongerAllowsAndTheInitiatorIsToldWhere() {
        exactJob(2, client -> {
            final Rma rma = Rma.of(client);
            client.attachSegment(SEGMENT);
            final DescriptorExchange exchange = new DescriptorExchange(client);
            final Arena kept = Arena.ofShared();
            final Arena dropped = Arena.ofShared();
            try {
                // rank 1 owns four registrations: one it closes, one whose arena it closes, one read-only, one open
                final MemorySegment[] memory = {kept.allocate(4096), dropped.allocate(4096), kept.allocate(4096),
                    kept.allocate(4096)};
                final BufferDescriptor[][] all = new BufferDescriptor[4][];
                final Registration[] registrations = new Registration[4];
                for (int i = 0; i < 4; i++) {
                    memory[i].fill((byte) 7);
                    registrations[i] = client.register(i == 2 ? memory[i].asReadOnly() : memory[i]);
                    all[i] = exchange.allOf(registrations[i].descriptor());
                }
                if (client.rank() == 1) {
                    registrations[0].close();
                    dropped.close();
                }
                client.barrier();
                if (client.rank() == 0) {
                    final MemorySegment local = kept.allocate(4096);
                    local.fill((byte) 1);
                    refused(() -> rma.put(all[0][1], 100, local, 0, 64), "put to", "[100, 164)", "no open");
                    refused(() -> rma.getNb(local, 0, all[0][1], 0, 10).await(), "get from", "[0, 10)", "no open");
                    refused(() -> {
                        rma.putNbi(all[1][1], 0, local, 0, 4096, Lc.NOW);
                        client.nbiWait(Ec.PUT);
                    }, "put to", "[0, 4096)", "no open");
                    refused(() -> rma.putNb(all[2][1], 8, local, 0, 8, Lc.NOW).await(), "put to", "[8, 16)",
                        "read-only");
                    rma.get(local, 0, all[2][1], 0, 4096); // read-only memory may still be read
                    assertEquals(7, local.get(ValueLayout.JAVA_BYTE, 4095));
                    // a descriptor that claims more than was registered: the owner checks the range itself
                    final BufferDescriptor open = all[3][1];
                    final BufferDescriptor forged = new BufferDescriptor(1, open.handle(), open.address(), 8192, 0);
                    refused(() -> rma.put(forged, 4090, local, 0, 12), "put to", "[4090, 4102)", "outside");
                    refused(() -> {
                        rma.getNbi(local, 0, forged, 4096, 100);
                        client.nbiWait(Ec.GET);
                    }, "get from", "[4096, 4196)", "outside");
                    local.fill((byte) 1);
                    rma.put(open, 0, local, 0, 16); // and the open one still works
                }
                client.barrier();
                if (client.rank() == 1) {
                    for (int i : new int[] {0, 2}) {
                        for (long b = 0; b < 4096; b++) {
                            assertEquals(7, memory[i].get(ValueLayout.JAVA_BYTE, b), "registration " + i + " byte "
                                + b + " written after the owner refused it");
                        }
                    }
                    for (long b = 0; b < 4096; b++) {
                        assertEquals(b < 16 ? 1 : 7, memory[3].get(ValueLayout.JAVA_BYTE, b), "open registration, byte "
                            + b);
                    }
                }
                client.barrier();
            } finally {
                kept.close();
                if (dropped.scope().isAlive()) {
                    dropped.close();
                }
            }
        });
    }

    /** The call fails, as the owner refused it, with a message that names rank 1 and each of {@code mentioned}. */
    private static void refused(Runnable call, String... mentioned) {
        final GexException e = assertThrows(GexException.class, call::run);
        final String message = String.valueOf(e.getCause() == null ? e.getMessage() : e.getCause().getMessage());
        assertTrue(message.contains("rank 1 refused"), message);
        for (String m : mentioned) {
            assertTrue(message.contains(m), "'" + message + "' should name " + m);
        }
    }

    private static void assertMessage(Runnable r, String... mentioned) {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
        for (String m : mentioned) {
            assertTrue(e.getMessage().contains(m), "message '" + e.getMessage() + "' should name " + m);
        }
    }
}
