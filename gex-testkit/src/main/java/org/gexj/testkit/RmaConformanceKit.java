package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.Lc;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * RMA conformance, run against every conduit: random put/get sequences against a local model of every segment,
 * value forms, NB/NBI completion and access regions, heap buffers; bounds checks with nothing sent
 * ({@link RmaBoundsKit}); and RMA between registered memory ({@link RegisteredRmaKit}).
 */
public abstract class RmaConformanceKit extends RegisteredRmaKit {
    /**
     * Every shrink step runs a whole job: a bounded number lets a failure report its shrunk case before the timeout.
     */
    private static final int SHRINK_CYCLES = 100;

    /** Examples per property with gexrun, where each starts a JVM per rank: a few seconds each on 2 cores. */
    private static final int GEXRUN_EXAMPLES = 4;
    /** How long a target waits without polling for a put to its memory to return. */
    private static final Duration UNPOLLED_WAIT = Duration.ofMillis(300);

    /**
     * A property run whose every example is a job. With gexrun, the rank processes replay the driver's draws from its
     * seed, and a failure is reported as drawn: shrinking would need the driver's verdicts in every process.
     */
    private QuickTheory multiRank(int examples) {
        if (launchesProcesses()) {
            return qt().withFixedSeed(seed()).withExamples(Math.min(examples, GEXRUN_EXAMPLES)).withShrinkCycles(0);
        }
        return qt().withExamples(examples).withShrinkCycles(SHRINK_CYCLES);
    }

    /** One draw in ten is an edge value: random draws alone almost never hit the ends of a segment or slot. */
    @SafeVarargs
    private static <T> Gen<T> edgeBiased(Gen<T> values, T... edges) {
        return Generate.frequency(Pair.of(9, values), Pair.of(1, Generate.pick(List.of(edges))));
    }

    private static <T> Gen<List<T>> listsOf(Gen<T> values, int minSize, int maxSize) {
        return lists().of(values).ofType(lists().<T, List<T>>arrayList()).ofSizeBetween(minSize, maxSize);
    }

    /** One generated operation of rank 0. */
    public record Op(int peer, boolean put, int mode, int offset, int length, int seed) {
    }

    /** Lengths are often short and sometimes run past the end of the segment (then cut to fit). */
    private static Gen<Op> ops() {
        final Gen<Integer> peer = integers().between(0, 1);
        final Gen<Boolean> put = booleans().all();
        final Gen<Integer> mode = integers().between(0, 2);
        final Gen<Integer> offset = edgeBiased(integers().between(0, SEGMENT - 1), 0, SEGMENT - 1);
        final Gen<Integer> length = Generate.oneOf(integers().between(0, 16), integers().between(0, 200_000));
        final Gen<Integer> seed = integers().all();
        return in -> {
            final int at = offset.generate(in);
            return new Op(peer.generate(in), put.generate(in), mode.generate(in), at,
                Math.min(length.generate(in), SEGMENT - at), seed.generate(in));
        };
    }

    /** Rank 0 runs the ops against ranks 0 and 1 (blocking, NB, NBI); the final segments equal the model. */
    @Test
    void putsAndGetsMatchALocalModel() {
        multiRank(30).forAll(listsOf(ops(), 1, 25)).checkAssert(ops -> job(2, client -> {
            final Rma rma = Rma.of(client);
            final MemorySegment mine = client.attachSegment(SEGMENT).memory();
            Patterns.fill(mine, 0, SEGMENT, 1000 + client.rank());
            client.barrier();
            if (client.rank() == 0) {
                final byte[][] model = new byte[2][SEGMENT];
                for (int r = 0; r < 2; r++) {
                    for (int i = 0; i < SEGMENT; i++) {
                        model[r][i] = Patterns.at(1000 + r, i);
                    }
                }
                final MemorySegment buffer = Arena.ofAuto().allocate(SEGMENT);
                for (Op op : ops) {
                    if (op.put()) {
                        Patterns.fill(buffer, 0, op.length(), op.seed());
                        switch (op.mode()) {
                            case 0 -> rma.put(op.peer(), op.offset(), buffer, 0, op.length());
                            case 1 -> rma.putNb(op.peer(), op.offset(), buffer, 0, op.length(), Lc.NOW).await();
                            default -> {
                                rma.putNbi(op.peer(), op.offset(), buffer, 0, op.length(), Lc.NOW);
                                client.nbiWait(Ec.PUT);
                            }
                        }
                        for (int i = 0; i < op.length(); i++) {
                            model[op.peer()][op.offset() + i] = Patterns.at(op.seed(), i);
                        }
                    } else {
                        buffer.fill((byte) 0);
                        switch (op.mode()) {
                            case 0 -> rma.get(buffer, 0, op.peer(), op.offset(), op.length());
                            case 1 -> rma.getNb(buffer, 0, op.peer(), op.offset(), op.length()).await();
                            default -> {
                                rma.getNbi(buffer, 0, op.peer(), op.offset(), op.length());
                                client.nbiWait(Ec.GET);
                            }
                        }
                        final byte[] got = buffer.asSlice(0, op.length()).toArray(ValueLayout.JAVA_BYTE);
                        final byte[] want = java.util.Arrays.copyOfRange(model[op.peer()], op.offset(),
                            op.offset() + op.length());
                        assertArrayEquals(want, got, "get " + op);
                    }
                }
                for (int r = 0; r < 2; r++) {
                    final MemorySegment whole = Arena.ofAuto().allocate(SEGMENT);
                    rma.get(whole, 0, r, 0, SEGMENT);
                    assertArrayEquals(model[r], whole.toArray(ValueLayout.JAVA_BYTE), "segment of rank " + r);
                }
            }
            client.barrier();
        }));
    }

    /** One generated NBI operation of every rank: target, place in its slot, length, payload seed. */
    public record NbiOp(int target, int within, int length, int seed) {
    }

    private static final int RANKS = 3;
    private static final int MAX_NBI_OPS = 16;
    /**
     * Each initiator owns a stripe of every segment, cut into one slot per op, so operations in flight never overlap.
     */
    private static final int SLOT = SEGMENT / RANKS / MAX_NBI_OPS;

    private static Gen<NbiOp> nbiOps() {
        final Gen<Integer> target = integers().between(0, RANKS - 1);
        final Gen<Integer> within = edgeBiased(integers().between(0, SLOT - 1), 0, SLOT - 1);
        final Gen<Integer> length = edgeBiased(integers().between(0, SLOT), 0, SLOT);
        final Gen<Integer> seed = integers().all();
        return in -> {
            final int at = within.generate(in);
            return new NbiOp(target.generate(in), at, Math.min(length.generate(in), SLOT - at), seed.generate(in));
        };
    }

    private static long slotOffset(int initiator, int index, NbiOp op) {
        return (long) initiator * (SEGMENT / RANKS) + (long) index * SLOT + op.within();
    }

    /**
     * Every rank issues all its NBI gets, then all its NBI puts, without waiting in between, to random ranks
     * (itself included), and completes each batch with one nbiWait; every segment and every got byte then equals the
     * model. Operations in flight at once exercise the asynchronous completion paths.
     */
    @Test
    void overlappingNbiOperationsOfEveryRankMatchTheModel() {
        multiRank(15).forAll(listsOf(nbiOps(), 1, MAX_NBI_OPS)).checkAssert(ops -> exactJob(RANKS, client -> {
            final Rma rma = Rma.of(client);
            final int me = client.rank();
            final MemorySegment mine = client.attachSegment(SEGMENT).memory();
            Patterns.fill(mine, 0, SEGMENT, 2000 + me);
            final MemorySegment source = Arena.ofAuto().allocate((long) MAX_NBI_OPS * SLOT);
            final MemorySegment got = Arena.ofAuto().allocate((long) MAX_NBI_OPS * SLOT);
            client.barrier();
            for (int i = 0; i < ops.size(); i++) {
                final NbiOp op = ops.get(i);
                rma.getNbi(got, (long) i * SLOT, op.target(), slotOffset(me, i, op), op.length());
            }
            client.nbiWait(Ec.GET);
            for (int i = 0; i < ops.size(); i++) {
                final NbiOp op = ops.get(i);
                final long at = slotOffset(me, i, op);
                for (int b = 0; b < op.length(); b++) {
                    assertEquals(Patterns.at(2000 + op.target(), at + b),
                        got.get(ValueLayout.JAVA_BYTE, (long) i * SLOT + b),
                        "rank " + me + " got byte " + b + " of " + op);
                }
            }
            client.barrier();
            for (int i = 0; i < ops.size(); i++) {
                final NbiOp op = ops.get(i);
                Patterns.fill(source, (long) i * SLOT, op.length(), op.seed() + me);
                rma.putNbi(op.target(), slotOffset(me, i, op), source, (long) i * SLOT, op.length(), Lc.NOW);
            }
            client.nbiWait(Ec.PUT);
            client.barrier();
            // the model of this rank's segment: its pattern, overwritten by every rank's puts that target it
            final byte[] model = new byte[SEGMENT];
            for (int b = 0; b < SEGMENT; b++) {
                model[b] = Patterns.at(2000 + me, b);
            }
            for (int initiator = 0; initiator < RANKS; initiator++) {
                for (int i = 0; i < ops.size(); i++) {
                    final NbiOp op = ops.get(i);
                    if (op.target() == me) {
                        final long at = slotOffset(initiator, i, op);
                        for (int b = 0; b < op.length(); b++) {
                            model[(int) at + b] = Patterns.at(op.seed() + initiator, b);
                        }
                    }
                }
            }
            assertArrayEquals(model, mine.toArray(ValueLayout.JAVA_BYTE), "segment of rank " + me);
            client.barrier();
        }));
    }

    /**
     * {@code Lc.NOW}: the source may be reused as soon as the put returns, whether the transport copied it (small puts
     * on ofi and ibv) or waited for the data to leave. Each put's source is overwritten at once; the target must hold
     * what was there at the call. Native and heap sources, sizes on both sides of the transports' copy limits.
     */
    @Test
    void aPutWithLcNowLeavesItsSourceFreeAtReturn() {
        final long[] sizes = {1, 64, 100, 8192, 8193, 65537};
        exactJob(2, client -> {
            final Rma rma = Rma.of(client);
            final MemorySegment mine = attachZeroed(client);
            final int peer = (client.rank() + 1) % 2;
            long at = 0;
            for (boolean heap : new boolean[] {false, true}) {
                final MemorySegment src = heap ? MemorySegment.ofArray(new byte[65537])
                    : Arena.ofAuto().allocate(65537);
                for (int i = 0; i < sizes.length; i++) {
                    final long n = sizes[i];
                    final int seed = 3000 + 31 * client.rank() + (heap ? 16 : 0) + i;
                    Patterns.fill(src, 0, n, seed);
                    final Event e = i % 2 == 0 ? rma.putNb(peer, at, src, 0, n, Lc.NOW) : null;
                    if (e == null) {
                        rma.putNbi(peer, at, src, 0, n, Lc.NOW);
                    }
                    src.asSlice(0, n).fill((byte) 0x5A);
                    if (e != null) {
                        e.await();
                    }
                    at += n;
                }
            }
            client.nbiWait(Ec.PUT);
            client.barrier();
            long from = 0;
            for (boolean heap : new boolean[] {false, true}) {
                for (int i = 0; i < sizes.length; i++) {
                    final int seed = 3000 + 31 * peer + (heap ? 16 : 0) + i;
                    for (long b = 0; b < sizes[i]; b++) {
                        if (mine.get(ValueLayout.JAVA_BYTE, from + b) != Patterns.at(seed, b)) {
                            assertEquals(Patterns.at(seed, b), mine.get(ValueLayout.JAVA_BYTE, from + b), "rank "
                                + client.rank() + ": byte " + b + " of the " + sizes[i] + "-byte put from "
                                + (heap ? "heap" : "native") + " memory, whose source was overwritten after return");
                        }
                    }
                    from += sizes[i];
                }
            }
            client.barrier();
        });
    }

    /** Attaches this rank's segment, zeroed, and waits until every rank's is. */
    private static MemorySegment attachZeroed(Client client) {
        final MemorySegment mine = client.attachSegment(SEGMENT).memory();
        mine.fill((byte) 0);
        client.barrier();
        return mine;
    }

    @Test
    void valueFormsRoundTripEverySize() {
        job(2, client -> {
            final Rma rma = Rma.of(client);
            // zeros around every value, so that a put of more than its bytes shows
            client.attachSegment(SEGMENT).memory().fill((byte) 0);
            client.barrier();
            final int peer = (client.rank() + 1) % 2;
            final long base = 64L * client.rank() * 32;
            for (int n = 1; n <= 8; n++) {
                final long value = 0x0123_4567_89ab_cdefL ^ (n * 0x1111L);
                rma.putVal(peer, base + 16 * n, value, n);
                final long mask = n == 8 ? -1L : (1L << (8 * n)) - 1;
                assertEquals(value & mask, rma.getVal(peer, base + 16 * n, n), "value of " + n + " bytes");
                assertEquals(0, rma.getVal(peer, base + 16 * n + n, 8), "the 8 bytes after a value of " + n + " bytes");
            }
            rma.putValNbi(peer, base, 42, 4);
            client.nbiWait(Ec.PUT);
            rma.putValNb(peer, base + 8, 43, 2).await();
            assertEquals(42, rma.getVal(peer, base, 4));
            assertEquals(43, rma.getVal(peer, base + 8, 2));
            assertThrows(IllegalArgumentException.class, () -> rma.putVal(peer, 0, 1, 9));
            assertThrows(IllegalArgumentException.class, () -> rma.getVal(peer, 0, 0));
            client.barrier();
        });
    }

    @Test
    void accessRegionCollectsItsNbiOperations() {
        exactJob(2, client -> {
            final Rma rma = Rma.of(client);
            final MemorySegment mine = client.attachSegment(SEGMENT).memory();
            client.barrier();
            final int peer = (client.rank() + 1) % 2;
            final int base = client.rank() * (SEGMENT / 2);
            final MemorySegment src = Arena.ofAuto().allocate(100_000);
            Patterns.fill(src, 0, 100_000, 5 + client.rank());
            client.beginAccessRegion();
            rma.putNbi(peer, base, src, 0, 50_000, Lc.DEFER);
            rma.putNbi(peer, base + 50_000, src, 50_000, 50_000, Lc.GROUP);
            final Event region = client.endAccessRegion();
            assertThrows(IllegalStateException.class, client::endAccessRegion);
            region.await();
            assertThrows(IllegalStateException.class, region::test, "the region's event is consumed by its wait");
            // the region's completion releases the DEFER and GROUP sources: reusing them must not reach the peer
            Patterns.fill(src, 0, 100_000, 99);
            client.barrier();
            // complete at the target: the peer's region completed before the barrier, so its data is here
            assertEquals(-1, Patterns.firstMismatch(mine, peer * (SEGMENT / 2), 100_000, 5 + peer),
                "rank " + peer + "'s puts in this rank's segment");
            final MemorySegment back = Arena.ofAuto().allocate(100_000);
            rma.get(back, 0, peer, base, 100_000);
            assertEquals(-1, Patterns.firstMismatch(back, 0, 100_000, 5 + client.rank()),
                "this rank's puts, read back");
            client.barrier();
        });
    }

    /** Heap buffers of these sizes: one byte to several times a conduit's staging buffer (ofi's are 64 KiB). */
    private static final int[] HEAP_SIZES = {1, 8, 4095, 65_536, 65_537, 100_003, SEGMENT / 2 - 8};

    /**
     * One program, every conduit: heap memory ({@code MemorySegment.ofArray}) as the local buffer of every put and
     * get form (blocking, NB, NBI), at an odd offset into the array, of every size in {@link #HEAP_SIZES}; what a
     * heap put wrote a native get reads back, and what a heap get reads is the peer's bytes.
     */
    @Test
    void heapLocalBuffersWorkForEveryPutAndGetForm() {
        exactJob(2, client -> {
            final Rma rma = Rma.of(client);
            final MemorySegment mine = attachZeroed(client);
            final int peer = (client.rank() + 1) % 2;
            final long base = (long) client.rank() * (SEGMENT / 2); // this rank's half of the peer's segment
            final MemorySegment heap = MemorySegment.ofArray(new byte[SEGMENT / 2 + 3]);
            final MemorySegment longs = MemorySegment.ofArray(new long[SEGMENT / 16]);
            final MemorySegment check = Arena.ofAuto().allocate(SEGMENT / 2);
            for (int size : HEAP_SIZES) {
                for (int mode = 0; mode < 3; mode++) {
                    final int seed = size * 3 + mode + 100 * client.rank();
                    final String what = "mode " + mode + ", " + size + " bytes";
                    final MemorySegment src = mode == 1 ? longs : heap;
                    final long at = mode == 1 ? 8 : 3;
                    Patterns.fill(src, at, size, seed);
                    switch (mode) {
                        case 0 -> rma.put(peer, base, src, at, size);
                        case 1 -> rma.putNb(peer, base, src, at, size, Lc.NOW).await();
                        default -> {
                            rma.putNbi(peer, base, src, at, size, Lc.DEFER);
                            client.nbiWait(Ec.PUT);
                        }
                    }
                    rma.get(check, 0, peer, base, size);
                    assertEquals(-1, Patterns.firstMismatch(check, 0, size, seed), "heap put, " + what);
                    src.fill((byte) 0);
                    switch (mode) {
                        case 0 -> rma.get(src, at, peer, base, size);
                        case 1 -> rma.getNb(src, at, peer, base, size).await();
                        default -> {
                            rma.getNbi(src, at, peer, base, size);
                            client.nbiWait(Ec.GET);
                        }
                    }
                    assertEquals(-1, Patterns.firstMismatch(src, at, size, seed), "heap get, " + what);
                    assertEquals(0, src.get(ValueLayout.JAVA_BYTE, at - 1), "byte before a heap get, " + what);
                    if (at + size < src.byteSize()) {
                        assertEquals(0, src.get(ValueLayout.JAVA_BYTE, at + size), "byte after a heap get, " + what);
                    }
                }
            }
            client.barrier();
            // the peer's last heap put of the largest size is in this rank's segment
            final int last = HEAP_SIZES[HEAP_SIZES.length - 1];
            assertEquals(-1, Patterns.firstMismatch(mine, (long) peer * (SEGMENT / 2), last, last * 3 + 2 + 100 * peer),
                "rank " + peer + "'s last heap put in this rank's segment");
            client.barrier();
        });
    }

    /**
     * Several NB puts and gets with heap buffers in flight at once, more bytes than a conduit stages at a time: each
     * completes with its own bytes.
     */
    @Test
    void manyHeapOperationsInFlightAtOnceEachCompleteWithTheirBytes() {
        exactJob(2, client -> {
            final Rma rma = Rma.of(client);
            client.attachSegment(SEGMENT);
            client.barrier();
            final int peer = (client.rank() + 1) % 2;
            final int ops = 16;
            final int each = SEGMENT / 2 / ops;
            final long base = (long) client.rank() * (SEGMENT / 2);
            final byte[][] sources = new byte[ops][each];
            final Event[] events = new Event[ops];
            for (int i = 0; i < ops; i++) {
                Patterns.fill(MemorySegment.ofArray(sources[i]), 0, each, 500 + i + 50 * client.rank());
                events[i] = rma.putNb(peer, base + (long) i * each, MemorySegment.ofArray(sources[i]), 0, each,
                    Lc.DEFER);
            }
            for (Event e : events) {
                e.await();
            }
            final byte[][] got = new byte[ops][each];
            for (int i = 0; i < ops; i++) {
                events[i] = rma.getNb(MemorySegment.ofArray(got[i]), 0, peer, base + (long) i * each, each);
            }
            for (int i = 0; i < ops; i++) {
                events[i].await();
                assertArrayEquals(sources[i], got[i], "heap get " + i + " of " + each + " bytes");
            }
            client.barrier();
        });
    }

    /**
     * Remote completion means the bytes are in the target's memory: a blocking, NB and NBI put each return only once
     * rank 1 would read them, although rank 1 does not poll meanwhile (it waits outside GEX/J, up to
     * {@link #UNPOLLED_WAIT}, for rank 0 to say the put returned). A conduit whose target must poll to place the data
     * makes the put wait for that poll, which rank 1's barrier then gives.
     */
    @Test
    void aCompletedPutIsInTheTargetsMemoryBeforeTheTargetPolls() {
        final long[] sizes = {8, 100_000, 8};
        exactJob(2, client -> {
            final Rma rma = Rma.of(client);
            final MemorySegment mine = client.attachSegment(SEGMENT).memory();
            mine.fill((byte) 0);
            final KitSignals signals = signals();
            client.barrier();
            for (int phase = 0; phase < sizes.length; phase++) {
                final int seed = 7000 + phase;
                final long size = sizes[phase];
                if (client.rank() == 0) {
                    final MemorySegment source = Arena.ofAuto().allocate(size);
                    Patterns.fill(source, 0, size, seed);
                    // polling meanwhile: over a lossy link rank 1, still in the barrier this rank has left, may need
                    // a retransmission of this rank's part of it, which only this rank's polls send
                    final long deadline = System.nanoTime() + timeout().toNanos();
                    while (!signals.posted("unpolled-" + phase)) {
                        if (System.nanoTime() > deadline) {
                            throw new AssertionError("kit signal unpolled-" + phase + " not posted within "
                                + timeout());
                        }
                        client.poll();
                    }
                    switch (phase) {
                        case 0 -> rma.put(1, 0, source, 0, size);
                        case 1 -> rma.putNb(1, 0, source, 0, size, Lc.NOW).await();
                        default -> {
                            rma.putNbi(1, 0, source, 0, size, Lc.NOW);
                            client.nbiWait(Ec.PUT);
                        }
                    }
                    signals.post("returned-" + phase, 1);
                } else {
                    signals.post("unpolled-" + phase, 1);
                    if (signals.postedWithin("returned-" + phase, UNPOLLED_WAIT)) {
                        assertEquals(-1, Patterns.firstMismatch(mine, 0, size, seed), "first wrong byte of rank 1's"
                            + " segment when rank 0's put " + phase + " of " + size + " bytes returned, rank 1 not"
                            + " having polled since");
                    }
                }
                client.barrier();
                if (client.rank() == 1) {
                    assertEquals(-1, Patterns.firstMismatch(mine, 0, size, seed),
                        "first wrong byte of rank 1's segment after put " + phase);
                }
                client.barrier();
            }
        });
    }
}
