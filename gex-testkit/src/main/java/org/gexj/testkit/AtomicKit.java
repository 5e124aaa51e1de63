package org.gexj.testkit;

import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.Flags;
import org.gexj.rma.AtomicDomain;
import org.gexj.rma.AtomicOp;
import org.gexj.rma.AtomicType;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * Remote atomics ({@link AtomicDomain}) on every conduit: random sequences of every operation on every type, in every
 * form, against a sequential model ({@link AtomicModel}); concurrent fetch-and-adds from every rank and thread that
 * hand out each value exactly once; a compare-and-swap lock around a critical section of plain RMA; NBI categories and
 * access regions; and bad input refused with an exception naming it, with nothing changed at the target.
 * Jobs of 2, 3 and 4 ranks.
 */
public abstract class AtomicKit extends ConduitKit {
    private static final long SEGMENT = 64 * 1024;
    /** Bytes of the target's segment each initiating rank owns in the model test: 8 per type. */
    private static final int PER_RANK = 8 * 6;
    /** Operations per rank in each example of the model test, and its examples. */
    private static final int STEPS = 600;
    private static final int EXAMPLES = 4;

    /** The flags the kit creates its domains with: 0, or a hint that chooses another implementation. */
    protected int domainFlags() {
        return 0;
    }

    /**
     * A counter of {@code Client.stats()} that counts the NIC's atomics, which the model test then finds raised by its
     * operations; null (the default) where the NIC should not perform them.
     */
    protected String nicAtomicsCounter() {
        return null;
    }

    /**
     * Each rank applies random operations of every type, form and flag to its own values in its right neighbour's
     * segment (so that no two ranks touch a value) and checks every fetched value and the final ones against the
     * model; after a barrier the owner finds the model's values in its memory, replaying its left neighbour's draws.
     */
    @Test
    void everyOperationOfEveryTypeMatchesASequentialModel() {
        // each example is a job; a failure names its seed, which replays it (no shrinking: a job per step); rank
        // processes draw the driver's seeds from its fixed seed
        final var theory = launchesProcesses() ? qt().withFixedSeed(seed()) : qt();
        theory.withExamples(EXAMPLES).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed -> job(3, client -> {
            final MemorySegment mine = client.attachSegment(SEGMENT).memory();
            mine.fill((byte) 0);
            final int size = client.size();
            final int target = (client.rank() + 1) % size;
            final AtomicType[] types = AtomicType.values();
            final AtomicDomain[] domains = new AtomicDomain[types.length];
            for (int t = 0; t < types.length; t++) {
                domains[t] = AtomicDomain.create(client, types[t], AtomicModel.opsOf(types[t]), domainFlags());
            }
            client.barrier();
            final MemorySegment result = Arena.ofAuto().allocate(16, 8);
            final long base = (long) client.rank() * PER_RANK;
            final long[] model = AtomicModel.sequence(seed * 31 + client.rank(), types, base, STEPS,
                (t, op, at, a, b, form, flags) -> AtomicModel.run(client, domains[t], form, result, 3, target, at,
                    op, a, b, flags));
            for (int t = 0; t < types.length; t++) {
                final long held = AtomicModel.run(client, domains[t], t % 3, result, 0, target, base + 8L * t,
                    AtomicOp.GET, 0, 0, 0);
                assertTrue(AtomicModel.same(types[t], model[t], held), types[t] + " at the end: "
                    + AtomicModel.show(types[t], held) + ", the model's " + AtomicModel.show(types[t], model[t]));
            }
            client.barrier();
            final String counter = nicAtomicsCounter();
            if (counter != null) {
                // counted by the initiator or by the target: every rank started as many as it was the target of
                assertTrue(client.stats().getOrDefault(counter, 0L) >= (long) STEPS, counter + " is "
                    + client.stats().get(counter) + " after " + STEPS + " operations: the NIC did not perform them");
            }
            final int from = (client.rank() + size - 1) % size;
            final long theirBase = (long) from * PER_RANK;
            final long[] theirs = AtomicModel.sequence(seed * 31 + from, types, theirBase, STEPS, null);
            for (int t = 0; t < types.length; t++) {
                final long at = theirBase + 8L * t;
                final long held = types[t].bytes() == 4 ? mine.get(ValueLayout.JAVA_INT, at)
                    : mine.get(ValueLayout.JAVA_LONG, at);
                assertTrue(AtomicModel.same(types[t], theirs[t], held), types[t] + " of rank " + from + " in rank "
                    + client.rank() + "'s memory: " + AtomicModel.show(types[t], held) + ", the model's "
                    + AtomicModel.show(types[t], theirs[t]));
            }
            client.barrier();
            for (AtomicDomain d : domains) {
                d.close();
            }
        }));
    }

    /**
     * Every rank's two threads fetch-and-increment one counter on rank 0 (INT64 FINC, and UINT32 FADD of 1 on a second
     * counter); every fetched value from 0 to the total appears exactly once, and the counters end at the total.
     */
    @Test
    void concurrentFetchAddsHandOutEveryValueOnce() {
        final int perThread = 400;
        final int threads = 2;
        job(4, client -> {
            final Rma rma = Rma.of(client);
            final MemorySegment mine = client.attachSegment(SEGMENT).memory();
            mine.fill((byte) 0);
            final int size = client.size();
            final int total = size * threads * perThread;
            final AtomicDomain longs = AtomicDomain.create(client, AtomicType.INT64, EnumSet.of(AtomicOp.FINC,
                AtomicOp.GET), domainFlags());
            final AtomicDomain ints = AtomicDomain.create(client, AtomicType.UINT32, EnumSet.of(AtomicOp.FADD),
                domainFlags());
            client.barrier();
            final List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            final Thread[] workers = new Thread[threads];
            for (int w = 0; w < threads; w++) {
                final int worker = w;
                workers[w] = new Thread(() -> {
                    try {
                        final MemorySegment result = Arena.ofAuto().allocate(8, 8);
                        final long base = 1024 + 8L * perThread * worker;
                        for (int i = 0; i < perThread; i++) {
                            final long got;
                            if (i % 2 == 0) {
                                got = longs.opLong(0, 0, AtomicOp.FINC, 0, 0, 0);
                            } else {
                                longs.opLongNb(result, 0, 0, 0, AtomicOp.FINC, 0, 0, 0).await();
                                got = result.get(ValueLayout.JAVA_LONG, 0);
                            }
                            mine.set(ValueLayout.JAVA_LONG, base + 8L * i, got);
                            ints.opLongNbi(result, 0, 0, 8, AtomicOp.FADD, 1, 0, 0);
                            client.nbiWait(Ec.RMW);
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                workers[w].start();
            }
            for (Thread worker : workers) {
                worker.join();
            }
            assertEquals(List.of(), failures);
            client.barrier();
            if (client.rank() == 0) {
                final boolean[] seen = new boolean[total];
                final MemorySegment theirs = Arena.ofAuto().allocate(8L * perThread * threads, 8);
                for (int r = 0; r < size; r++) {
                    rma.get(theirs, 0, r, 1024, theirs.byteSize());
                    for (int i = 0; i < perThread * threads; i++) {
                        final long v = theirs.getAtIndex(ValueLayout.JAVA_LONG, i);
                        assertTrue(v >= 0 && v < total, "fetched " + v + " outside [0, " + total + ")");
                        assertTrue(!seen[(int) v], "value " + v + " fetched twice");
                        seen[(int) v] = true;
                    }
                }
                assertEquals(total, longs.opLong(0, 0, AtomicOp.GET, 0, 0, 0));
                assertEquals(total, mine.get(ValueLayout.JAVA_INT, 8));
            }
            client.barrier();
        });
    }

    /**
     * A lock of FCAS and SET on rank 0 guards a read-modify-write of a plain value on rank 1 by blocking get and put:
     * no update is lost.
     */
    @Test
    void aCompareAndSwapLockGuardsPlainRma() {
        final int rounds = 60;
        job(3, client -> {
            final Rma rma = Rma.of(client);
            final MemorySegment mine = client.attachSegment(SEGMENT).memory();
            mine.fill((byte) 0);
            final AtomicDomain lock = AtomicDomain.create(client, AtomicType.INT32, EnumSet.of(AtomicOp.FCAS,
                AtomicOp.SET), domainFlags());
            client.barrier();
            final int owner = 1 % client.size();
            final MemorySegment value = Arena.ofAuto().allocate(8, 8);
            for (int i = 0; i < rounds; i++) {
                while (lock.opLong(0, 64, AtomicOp.FCAS, 0, client.rank() + 1, 0) != 0) {
                    client.poll();
                }
                rma.get(value, 0, owner, 128, 8);
                value.set(ValueLayout.JAVA_LONG, 0, value.get(ValueLayout.JAVA_LONG, 0) + 1);
                rma.put(owner, 128, value, 0, 8);
                lock.opLong(0, 64, AtomicOp.SET, 0, 0, AtomicDomain.REL);
            }
            client.barrier();
            if (client.rank() == owner) {
                assertEquals((long) rounds * client.size(), mine.get(ValueLayout.JAVA_LONG, 128), "updates");
            }
            client.barrier();
        });
    }

    /**
     * NBI operations complete in their own category (SET a put, GET a get, the rest RMW) and in an access region;
     * IMMEDIATE operations either start or start nothing; double forms on a FLOAT64 domain.
     */
    @Test
    void nbiCategoriesAccessRegionsAndImmediate() {
        job(2, client -> {
            client.attachSegment(SEGMENT).memory().fill((byte) 0);
            final AtomicDomain d = AtomicDomain.create(client, AtomicType.FLOAT64, EnumSet.of(AtomicOp.SET,
                AtomicOp.GET, AtomicOp.FADD, AtomicOp.FMAX), domainFlags());
            client.barrier();
            final int peer = (client.rank() + 1) % 2;
            final MemorySegment result = Arena.ofAuto().allocate(32, 8);
            final long at = 8L * client.rank();
            d.opDoubleNbi(null, 0, peer, at, AtomicOp.SET, 2.5, 0, 0);
            client.nbiWait(Ec.PUT);
            d.opDoubleNbi(result, 0, peer, at, AtomicOp.GET, 0, 0, 0);
            client.nbiWait(Ec.GET);
            assertEquals(2.5, result.get(ValueLayout.JAVA_DOUBLE, 0));
            d.opDoubleNbi(result, 8, peer, at, AtomicOp.FADD, 0.25, 0, 0);
            client.nbiWait(Ec.RMW);
            assertEquals(2.5, result.get(ValueLayout.JAVA_DOUBLE, 8));
            client.beginAccessRegion();
            d.opDoubleNbi(result, 16, peer, at, AtomicOp.FMAX, 1.0, 0, 0);
            final Event region = client.endAccessRegion();
            region.await();
            assertEquals(2.75, result.get(ValueLayout.JAVA_DOUBLE, 16));
            int started = 0;
            for (int i = 0; i < 50; i++) {
                final Event e = d.opDoubleNb(result, 24, peer, at, AtomicOp.FADD, 1, 0, Flags.IMMEDIATE);
                if (e != null) {
                    e.await();
                    started++;
                }
            }
            assertEquals(2.75 + started, d.opDouble(peer, at, AtomicOp.GET, 0, 0, 0));
            client.barrier();
        });
    }

    /**
     * Floating-point adds follow Java's arithmetic at its edges, on this rank's values and the peer's: adding -0.0 to
     * -0.0 leaves -0.0, subtracting +0.0 too; INC ignores its operand, even an infinite one.
     */
    @Test
    void floatingPointAddsKeepSignedZeros() {
        job(2, client -> {
            client.attachSegment(SEGMENT).memory().fill((byte) 0);
            final AtomicDomain doubles = AtomicDomain.create(client, AtomicType.FLOAT64, EnumSet.of(AtomicOp.SET,
                AtomicOp.FADD, AtomicOp.FSUB, AtomicOp.FINC, AtomicOp.GET), domainFlags());
            final AtomicDomain floats = AtomicDomain.create(client, AtomicType.FLOAT32, EnumSet.of(AtomicOp.SET,
                AtomicOp.FADD, AtomicOp.FSUB, AtomicOp.FINC, AtomicOp.GET), domainFlags());
            client.barrier();
            final long at = 16L * client.rank();
            for (int target : new int[] {client.rank(), (client.rank() + 1) % 2}) {
                for (AtomicDomain d : new AtomicDomain[] {doubles, floats}) {
                    final long where = at + (d == floats ? 8 : 0) + 32L * target;
                    d.opDouble(target, where, AtomicOp.SET, -0.0, 0, 0);
                    assertEquals(-0.0, d.opDouble(target, where, AtomicOp.FADD, -0.0, 0, 0));
                    assertEquals(-0.0, d.opDouble(target, where, AtomicOp.FSUB, 0.0, 0, 0));
                    assertEquals(-0.0, d.opDouble(target, where, AtomicOp.FINC, Double.POSITIVE_INFINITY, 0, 0));
                    assertEquals(1.0, d.opDouble(target, where, AtomicOp.GET, 0, 0, 0), d.type().toString());
                }
            }
            client.barrier();
        });
    }

    /** Bad input: each call throws naming the bad value, and the target's memory is unchanged. */
    @Test
    void badInputIsRefusedAndChangesNothing() {
        job(2, client -> {
            final MemorySegment mine = client.attachSegment(SEGMENT).memory();
            mine.fill((byte) 7);
            final int peer = (client.rank() + 1) % 2;
            final AtomicDomain ints = AtomicDomain.create(client, AtomicType.INT32, EnumSet.of(AtomicOp.FADD,
                AtomicOp.ADD), domainFlags());
            final AtomicDomain longs = AtomicDomain.create(client, AtomicType.INT64, EnumSet.of(AtomicOp.FADD),
                domainFlags());
            final AtomicDomain doubles = AtomicDomain.create(client, AtomicType.FLOAT64, EnumSet.of(AtomicOp.FADD),
                domainFlags());
            client.barrier();
            final MemorySegment result = Arena.ofAuto().allocate(8, 8);
            message(() -> longs.opLong(peer, 4, AtomicOp.FADD, 1, 0, 0), "offset 4");
            message(() -> ints.opLong(peer, SEGMENT, AtomicOp.FADD, 1, 0, 0), String.valueOf(SEGMENT));
            message(() -> ints.opLong(peer, -4, AtomicOp.FADD, 1, 0, 0), "-4");
            message(() -> ints.opLong(2, 0, AtomicOp.FADD, 1, 0, 0), "rank 2");
            message(() -> ints.opLong(peer, 0, AtomicOp.FMIN, 1, 0, 0), "FMIN");
            message(() -> ints.opLong(peer, 0, AtomicOp.ADD, 1L << 33, 0, 0), String.valueOf(1L << 33));
            message(() -> ints.opLongNb(result, 6, peer, 0, AtomicOp.FADD, 1, 0, 0), "8");
            message(() -> ints.opLongNbi(result.asReadOnly(), 0, peer, 0, AtomicOp.FADD, 1, 0, 0), "read-only");
            message(() -> ints.opLong(peer, 0, AtomicOp.FADD, 1, 0, 1 << 20), "0x100000");
            message(() -> ints.opLong(peer, 0, AtomicOp.FADD, 1, 0, AtomicDomain.MY_RANK), "MY_RANK");
            message(() -> doubles.opLong(peer, 0, AtomicOp.FADD, 1, 0, 0), "opDouble");
            message(() -> ints.opDouble(peer, 0, AtomicOp.FADD, 1, 0, 0), "opLong");
            message(() -> AtomicDomain.create(client, AtomicType.FLOAT32, EnumSet.of(AtomicOp.XOR), 0), "FLOAT32");
            message(() -> AtomicDomain.create(client, AtomicType.INT32, EnumSet.noneOf(AtomicOp.class), 0), "empty");
            message(() -> AtomicDomain.create(client, AtomicType.INT32, EnumSet.of(AtomicOp.ADD), 1), "0x1");
            assertThrows(NullPointerException.class, () -> ints.opLongNb(null, 0, peer, 0, AtomicOp.FADD, 1, 0, 0));
            assertThrows(NullPointerException.class, () -> ints.opLong(peer, 0, null, 1, 0, 0));
            // a 32-bit type takes [Integer.MIN_VALUE, 0xffff_ffff] for each operand its operation reads, and ignores
            // the others (the CAS below compares 0x07070707 and so stores nothing)
            final AtomicDomain cas = AtomicDomain.create(client, AtomicType.UINT32, EnumSet.of(AtomicOp.CAS,
                AtomicOp.GET), domainFlags());
            message(() -> cas.opLong(peer, 0, AtomicOp.CAS, 0, 0x1_0000_0000L, 0), "operand 2");
            message(() -> cas.opLong(peer, 0, AtomicOp.CAS, Integer.MIN_VALUE - 1L, 0, 0), "operand 1");
            cas.opLong(peer, 0, AtomicOp.CAS, 0xffff_ffffL, Integer.MIN_VALUE, 0);
            assertEquals(0x0707_0707L, cas.opLong(peer, 0, AtomicOp.GET, Long.MAX_VALUE, Long.MIN_VALUE, 0));
            try (Arena confined = Arena.ofConfined()) {
                final MemorySegment mineOnly = confined.allocate(8, 8);
                message(() -> ints.opLongNbi(mineOnly, 0, peer, 0, AtomicOp.FADD, 1, 0, 0), "confined");
                message(() -> ints.opLongNbi(mineOnly, 0, client.rank(), 0, AtomicOp.FADD, 1, 0, 0), "confined");
            }
            final Arena closing = Arena.ofShared();
            final MemorySegment gone = closing.allocate(8, 8);
            closing.close();
            for (int target : new int[] {peer, client.rank()}) {
                final IllegalStateException closed = assertThrows(IllegalStateException.class,
                    () -> ints.opLongNb(gone, 0, target, 0, AtomicOp.FADD, 1, 0, 0));
                assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
            }
            assertThrows(IllegalArgumentException.class, () -> AtomicOp.GET.toNonFetching());
            assertEquals(AtomicOp.SWAP, AtomicOp.SET.toFetching());
            assertEquals(AtomicOp.FXOR, AtomicOp.XOR.toFetching());
            assertEquals(AtomicOp.MIN, AtomicOp.FMIN.toNonFetching());
            // a non-fetching operation reads no result buffer
            ints.opLongNbi(null, 0, peer, 32, AtomicOp.ADD, 1, 0, 0);
            client.nbiWait(Ec.RMW);
            ints.close();
            assertThrows(IllegalStateException.class, () -> ints.opLong(peer, 0, AtomicOp.FADD, 1, 0, 0));
            client.barrier();
            final int added = 32; // the one accepted ADD, undone here
            final int seven = mine.get(ValueLayout.JAVA_INT, added);
            mine.set(ValueLayout.JAVA_INT, added, seven - 1);
            for (long i = 0; i < SEGMENT; i++) {
                if (mine.get(ValueLayout.JAVA_BYTE, i) != 7) {
                    throw new AssertionError("segment byte " + i + " changed by a refused call");
                }
            }
            client.barrier();
        });
    }

    private static void message(Runnable call, String mentioned) {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
        assertTrue(e.getMessage().contains(mentioned), "message '" + e.getMessage() + "' should name " + mentioned);
    }
}
