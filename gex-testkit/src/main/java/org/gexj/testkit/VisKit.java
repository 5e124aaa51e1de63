package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.rma.Rma;
import org.gexj.rma.Vis;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * Non-contiguous RMA ({@link Vis}) on every conduit: random vector, indexed and strided puts and gets (strides
 * negative too), in every form, against a contiguous oracle that moves the same bytes one at a time, with each of the
 * two ways the data can travel ({@code GEX_VIS=pieces} and {@code packed}), at 3 ranks; pieces larger than a message
 * at 4; and bad input refused with an exception naming it and nothing moved, at 2.
 */
public abstract class VisKit extends ConduitKit {
    private static final long SEGMENT = 256 * 1024;
    /** The bytes of the target's segment each rank owns. */
    private static final int REGION = 16 * 1024;
    private static final int LOCAL = 16 * 1024;
    private static final int OPERATIONS = 40;
    private static final int EXAMPLES = 3;

    /** One drawn operation: its pieces as (remote, local) byte positions in flow order, and how to call it. */
    private record Drawn(boolean put, int form, int kind, long[] remote, long[] local, Runnable call) {
    }

    @Test
    void everyFormMatchesAContiguousOracle() {
        for (String mode : new String[] {"pieces", "packed"}) {
            final var theory = launchesProcesses() ? qt().withFixedSeed(seed()) : qt();
            theory.withExamples(EXAMPLES).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed ->
                job(3, Map.of("GEX_VIS", mode), client -> oracleRun(client, seed, mode)));
        }
    }

    private static void oracleRun(Client client, long seed, String mode) {
        final Rma rma = Rma.of(client);
        final Vis vis = Vis.of(client);
        client.attachSegment(SEGMENT);
        final int target = (client.rank() + 1) % client.size();
        final long base = (long) client.rank() * REGION;
        final Random random = new Random(seed * 31 + client.rank());
        final MemorySegment local = Arena.ofShared().allocate(LOCAL);
        final MemorySegment image = Arena.ofShared().allocate(REGION);
        final byte[] model = new byte[REGION];
        random.nextBytes(model);
        image.copyFrom(MemorySegment.ofArray(model));
        rma.put(target, base, image, 0, REGION);
        client.barrier();
        for (int op = 0; op < OPERATIONS; op++) {
            final byte[] fill = new byte[LOCAL];
            random.nextBytes(fill);
            local.copyFrom(MemorySegment.ofArray(fill));
            final Drawn d = draw(client, vis, random, target, base, local);
            d.call().run();
            // the oracle: byte i of the flow goes from source position to destination position
            final byte[] expectLocal = fill.clone();
            for (int i = 0; i < d.remote().length; i++) {
                final int r = (int) (d.remote()[i] - base);
                final int l = (int) d.local()[i];
                if (d.put()) {
                    model[r] = fill[l];
                } else {
                    expectLocal[l] = model[r];
                }
            }
            rma.get(image, 0, target, base, REGION);
            final String what = mode + " " + (d.put() ? "put" : "get") + " kind " + d.kind() + " form " + d.form()
                + " of " + d.remote().length + " bytes, operation " + op;
            assertArrayEquals(model, image.toArray(ValueLayout.JAVA_BYTE), "target region after " + what);
            assertArrayEquals(expectLocal, local.toArray(ValueLayout.JAVA_BYTE), "local buffer after " + what);
        }
        client.barrier();
    }

    /** Draws an operation of a random kind (vector, indexed, strided), direction and form, and its byte map. */
    private static Drawn draw(Client client, Vis vis, Random random, int target, long base, MemorySegment local) {
        final boolean put = random.nextBoolean();
        final int form = random.nextInt(3);
        final int kind = random.nextInt(3);
        // the destination side's positions must not overlap; the source's may
        final List<long[]> remote = new ArrayList<>();
        final List<long[]> mine = new ArrayList<>();
        if (kind == 2) {
            final int levels = random.nextInt(4);
            final long[] count = new long[levels];
            for (int k = 0; k < levels; k++) {
                count[k] = 1 + random.nextInt(4);
            }
            final long elem = 1 + random.nextInt(12);
            final long[] rStrides = new long[levels];
            final long[] lStrides = new long[levels];
            final long rBase = base + stridesFor(random, count, elem, rStrides, put, REGION);
            final long lBase = stridesFor(random, count, elem, lStrides, !put, LOCAL);
            final long[] index = new long[levels];
            final long elements = Arrays.stream(count).reduce(1, (x, y) -> x * y);
            for (long e = 0; e < elements; e++) {
                long r = rBase;
                long l = lBase;
                for (int k = 0; k < levels; k++) {
                    r += index[k] * rStrides[k];
                    l += index[k] * lStrides[k];
                }
                remote.add(new long[] {r, elem});
                mine.add(new long[] {l, elem});
                for (int k = 0; k < levels && ++index[k] == count[k]; k++) {
                    index[k] = 0;
                }
            }
            final Runnable call = () -> strided(client, vis, put, form, target, rBase, rStrides, local, lBase,
                lStrides, elem, count, levels);
            return drawn(put, form, kind, remote, mine, call);
        }
        final int pieces = 1 + random.nextInt(kind == 1 ? 8 : 12);
        final long length = 1 + random.nextInt(kind == 1 ? 300 : 600);
        final List<long[]> destinations = disjoint(random, pieces, length, kind == 1, put ? REGION : LOCAL);
        final long total = destinations.stream().mapToLong(p -> p[1]).sum();
        final List<long[]> sources = kind == 1 ? indexedSources(random, total, put ? LOCAL : REGION)
            : splitSources(random, total, put ? LOCAL : REGION);
        for (long[] p : destinations) {
            (put ? remote : mine).add(put ? new long[] {base + p[0], p[1]} : p);
        }
        for (long[] p : sources) {
            (put ? mine : remote).add(put ? p : new long[] {base + p[0], p[1]});
        }
        final Runnable call = kind == 0 ? () -> vector(client, vis, put, form, target, remote, local, mine)
            : () -> indexed(client, vis, put, form, target, remote, local, mine);
        return drawn(put, form, kind, remote, mine, call);
    }

    /** Maps both sides' pieces to a byte-by-byte flow: the i-th byte of each side. */
    private static Drawn drawn(boolean put, int form, int kind, List<long[]> remote, List<long[]> local,
                               Runnable call) {
        return new Drawn(put, form, kind, flow(remote), flow(local), call);
    }

    private static long[] flow(List<long[]> pieces) {
        final long total = pieces.stream().mapToLong(p -> p[1]).sum();
        final long[] at = new long[(int) total];
        int i = 0;
        for (long[] p : pieces) {
            for (long b = 0; b < p[1]; b++) {
                at[i++] = p[0] + b;
            }
        }
        return at;
    }

    /**
     * Strides for {@code count} elements of {@code elem} bytes in {@code room} bytes: for the destination side,
     * nested levels in a random order, each with a gap and a random sign, so no element overlaps another; for a
     * source, anything in range, 0 too. @return the base offset that keeps every element in range
     */
    private static long stridesFor(Random random, long[] count, long elem, long[] strides, boolean destination,
                                   long room) {
        final List<Integer> order = new ArrayList<>();
        for (int k = 0; k < count.length; k++) {
            order.add(k);
        }
        Collections.shuffle(order, random);
        long extent = elem;
        for (int k : order) {
            final long magnitude = destination ? extent + random.nextInt(3) : random.nextInt((int) elem + 8);
            strides[k] = random.nextBoolean() ? magnitude : -magnitude;
            extent = Math.max(extent, magnitude * count[k] + extent);
        }
        long low = 0;
        long high = elem;
        for (int k = 0; k < count.length; k++) {
            final long reach = strides[k] * (count[k] - 1);
            low += Math.min(0, reach);
            high += Math.max(0, reach);
        }
        final long span = high - low;
        assertTrue(span <= room, "drawn strided shape of " + span + " bytes exceeds " + room);
        return -low + random.nextInt((int) (room - span) + 1);
    }

    /** Disjoint pieces in random order: a random partition of part of the room, some pieces dropped. */
    private static List<long[]> disjoint(Random random, int pieces, long length, boolean sameLength, long room) {
        final List<long[]> out = new ArrayList<>();
        long at = random.nextInt(64);
        for (int i = 0; i < pieces; i++) {
            final long n = sameLength ? length : random.nextInt((int) length + 1);
            if (at + n > room) {
                break;
            }
            out.add(new long[] {at, n});
            at += n + random.nextInt(40);
        }
        Collections.shuffle(out, random);
        return out;
    }

    /** Source pieces of random lengths (0 too) at random places, overlapping as they may, that add up to total. */
    private static List<long[]> splitSources(Random random, long total, long room) {
        final List<long[]> out = new ArrayList<>();
        long left = total;
        while (left > 0) {
            final long n = Math.min(left, random.nextInt(200));
            out.add(new long[] {random.nextInt((int) (room - n) + 1), n});
            left -= n;
        }
        return out;
    }

    /** Source pieces of one length that divides the total, at random places. */
    private static List<long[]> indexedSources(Random random, long total, long room) {
        final List<long[]> out = new ArrayList<>();
        if (total == 0) {
            return out;
        }
        long n = total;
        for (long d = 2; d <= 16; d++) {
            if (total % d == 0 && random.nextBoolean()) {
                n = total / d;
            }
        }
        for (long i = 0; i < total / n; i++) {
            out.add(new long[] {random.nextInt((int) (room - n) + 1), n});
        }
        return out;
    }

    private static void vector(Client client, Vis vis, boolean put, int form, int target, List<long[]> remote,
                               MemorySegment local, List<long[]> mine) {
        final long[] ro = remote.stream().mapToLong(p -> p[0]).toArray();
        final long[] rl = remote.stream().mapToLong(p -> p[1]).toArray();
        final long[] lo = mine.stream().mapToLong(p -> p[0]).toArray();
        final long[] ll = mine.stream().mapToLong(p -> p[1]).toArray();
        switch (form + (put ? 0 : 3)) {
            case 0 -> vis.putVector(target, ro.length, ro, rl, local, lo.length, lo, ll);
            case 1 -> vis.putVectorNb(target, ro.length, ro, rl, local, lo.length, lo, ll).await();
            case 2 -> vis.putVectorNbi(target, ro.length, ro, rl, local, lo.length, lo, ll);
            case 3 -> vis.getVector(local, lo.length, lo, ll, target, ro.length, ro, rl);
            case 4 -> vis.getVectorNb(local, lo.length, lo, ll, target, ro.length, ro, rl).await();
            default -> vis.getVectorNbi(local, lo.length, lo, ll, target, ro.length, ro, rl);
        }
        client.nbiWait(Ec.PUT | Ec.GET);
    }

    private static void indexed(Client client, Vis vis, boolean put, int form, int target, List<long[]> remote,
                                MemorySegment local, List<long[]> mine) {
        final long[] ro = remote.stream().mapToLong(p -> p[0]).toArray();
        final long[] lo = mine.stream().mapToLong(p -> p[0]).toArray();
        final long rl = remote.isEmpty() ? 0 : remote.get(0)[1];
        final long ll = mine.isEmpty() ? 0 : mine.get(0)[1];
        switch (form + (put ? 0 : 3)) {
            case 0 -> vis.putIndexed(target, ro.length, ro, rl, local, lo.length, lo, ll);
            case 1 -> vis.putIndexedNb(target, ro.length, ro, rl, local, lo.length, lo, ll).await();
            case 2 -> vis.putIndexedNbi(target, ro.length, ro, rl, local, lo.length, lo, ll);
            case 3 -> vis.getIndexed(local, lo.length, lo, ll, target, ro.length, ro, rl);
            case 4 -> vis.getIndexedNb(local, lo.length, lo, ll, target, ro.length, ro, rl).await();
            default -> vis.getIndexedNbi(local, lo.length, lo, ll, target, ro.length, ro, rl);
        }
        client.nbiWait(Ec.PUT | Ec.GET);
    }

    private static void strided(Client client, Vis vis, boolean put, int form, int target, long rBase,
                                long[] rStrides, MemorySegment local, long lBase, long[] lStrides, long elem,
                                long[] count, int levels) {
        switch (form + (put ? 0 : 3)) {
            case 0 -> vis.putStrided(target, rBase, rStrides, local, lBase, lStrides, elem, count, levels);
            case 1 -> vis.putStridedNb(target, rBase, rStrides, local, lBase, lStrides, elem, count, levels).await();
            case 2 -> vis.putStridedNbi(target, rBase, rStrides, local, lBase, lStrides, elem, count, levels);
            case 3 -> vis.getStrided(local, lBase, lStrides, target, rBase, rStrides, elem, count, levels);
            case 4 -> vis.getStridedNb(local, lBase, lStrides, target, rBase, rStrides, elem, count, levels).await();
            default -> vis.getStridedNbi(local, lBase, lStrides, target, rBase, rStrides, elem, count, levels);
        }
        client.nbiWait(Ec.PUT | Ec.GET);
    }

    /** Packed, pieces larger than a message are split across messages; both ways the bytes arrive in place. */
    @Test
    void piecesLargerThanAMessageArePackedInParts() {
        job(4, Map.of("GEX_VIS", "packed"), client -> {
            final Vis vis = Vis.of(client);
            final Rma rma = Rma.of(client);
            client.attachSegment(4 * SEGMENT);
            final int peer = (client.rank() + 1) % client.size();
            final long base = client.rank() * SEGMENT;
            final int piece = 100_001; // above every conduit's Medium
            final MemorySegment src = Arena.ofShared().allocate(2L * piece);
            Patterns.fill(src, 0, src.byteSize(), 77 + client.rank());
            // the two halves swapped on the way
            vis.putVector(peer, 2, new long[] {base + piece, base}, new long[] {piece, piece}, src, 1,
                new long[] {0}, new long[] {2L * piece});
            final MemorySegment back = Arena.ofShared().allocate(2L * piece);
            rma.get(back, 0, peer, base, 2L * piece);
            assertArrayEquals(src.asSlice(piece, piece).toArray(ValueLayout.JAVA_BYTE),
                back.asSlice(0, piece).toArray(ValueLayout.JAVA_BYTE), "second half first");
            assertArrayEquals(src.asSlice(0, piece).toArray(ValueLayout.JAVA_BYTE),
                back.asSlice(piece, piece).toArray(ValueLayout.JAVA_BYTE), "first half second");
            final MemorySegment got = Arena.ofShared().allocate(2L * piece);
            vis.getVectorNb(got, 2, new long[] {piece, 0}, new long[] {piece, piece}, peer, 1, new long[] {base},
                new long[] {2L * piece}).await();
            assertArrayEquals(src.toArray(ValueLayout.JAVA_BYTE), got.toArray(ValueLayout.JAVA_BYTE), "got back");
            client.barrier();
        });
    }

    /**
     * Packed, lists that pair up piece by piece and strided shapes go without a chunk plan (a list of offsets alone
     * where the pieces are of one length, a shape instead of a list): many 8-byte and uneven pieces and a 3-level shape
     * with a negative stride, each across several messages, put and get in every form, against a model of the bytes.
     */
    @Test
    void pairedListsAndShapesCrossManyMessages() {
        job(2, Map.of("GEX_VIS", "packed"), client -> {
            final Vis vis = Vis.of(client);
            final Rma rma = Rma.of(client);
            final long region = 1 << 20;
            client.attachSegment(2 * region);
            final int peer = 1 - client.rank();
            final long base = client.rank() * region;
            final Random random = new Random(seed() * 7 + client.rank());
            final byte[] model = new byte[(int) region];
            random.nextBytes(model);
            final MemorySegment image = Arena.ofShared().allocate(region);
            image.copyFrom(MemorySegment.ofArray(model));
            rma.put(peer, base, image, 0, region);
            final MemorySegment local = Arena.ofShared().allocate(region);
            final int pieces = 20_000;
            for (int form = 0; form < 3; form++) {
                for (boolean even : new boolean[] {true, false}) {
                    final long[] far = new long[pieces];
                    final long[] near = new long[pieces];
                    final long[] lengths = new long[pieces];
                    long at = random.nextInt(8);
                    for (int i = 0; i < pieces; i++) { // destinations ascending with gaps; sources anywhere
                        lengths[i] = even ? 8 : 1 + random.nextInt(40);
                        far[i] = at;
                        at += lengths[i] + 1 + random.nextInt(9);
                        near[i] = random.nextInt((int) (region / 2 - 64));
                    }
                    final byte[] fill = new byte[(int) region];
                    random.nextBytes(fill);
                    local.copyFrom(MemorySegment.ofArray(fill));
                    final long[] remote = far.clone();
                    for (int i = 0; i < pieces; i++) {
                        remote[i] += base;
                        System.arraycopy(fill, (int) near[i], model, (int) far[i], (int) lengths[i]);
                    }
                    final int f = form;
                    call(f, () -> even ? vis.putIndexedNb(peer, pieces, remote, 8, local, pieces, near, 8)
                        : vis.putVectorNb(peer, pieces, remote, lengths, local, pieces, near, lengths),
                        () -> {
                            if (even) {
                                vis.putIndexed(peer, pieces, remote, 8, local, pieces, near, 8);
                            } else {
                                vis.putVector(peer, pieces, remote, lengths, local, pieces, near, lengths);
                            }
                        }, () -> {
                            if (even) {
                                vis.putIndexedNbi(peer, pieces, remote, 8, local, pieces, near, 8);
                            } else {
                                vis.putVectorNbi(peer, pieces, remote, lengths, local, pieces, near, lengths);
                            }
                        }, client);
                    rma.get(image, 0, peer, base, region);
                    assertArrayEquals(model, image.toArray(ValueLayout.JAVA_BYTE), "after the put, form " + f
                        + (even ? ", even" : ", uneven"));
                    // back again: the same remote pieces into fresh local places, ascending (a get's destinations)
                    final MemorySegment got = Arena.ofShared().allocate(region);
                    final byte[] expect = new byte[(int) region];
                    final long[] into = new long[pieces];
                    long to = 0;
                    for (int i = 0; i < pieces; i++) {
                        into[i] = to;
                        System.arraycopy(model, (int) far[i], expect, (int) to, (int) lengths[i]);
                        to += lengths[i] + 3;
                    }
                    call(f, () -> even ? vis.getIndexedNb(got, pieces, into, 8, peer, pieces, remote, 8)
                        : vis.getVectorNb(got, pieces, into, lengths, peer, pieces, remote, lengths),
                        () -> {
                            if (even) {
                                vis.getIndexed(got, pieces, into, 8, peer, pieces, remote, 8);
                            } else {
                                vis.getVector(got, pieces, into, lengths, peer, pieces, remote, lengths);
                            }
                        }, () -> {
                            if (even) {
                                vis.getIndexedNbi(got, pieces, into, 8, peer, pieces, remote, 8);
                            } else {
                                vis.getVectorNbi(got, pieces, into, lengths, peer, pieces, remote, lengths);
                            }
                        }, client);
                    assertArrayEquals(expect, got.toArray(ValueLayout.JAVA_BYTE), "after the get, form " + f
                        + (even ? ", even" : ", uneven"));
                }
                // pieces that continue each other on both sides: one run, as testvisperf's lists at density 100 %
                final long[] runRemote = new long[3000];
                final long[] runLocal = new long[3000];
                final long[] runLengths = new long[3000];
                final long runAt = 1000 + random.nextInt(1000);
                final long runFrom = random.nextInt(1000);
                for (int i = 0; i < 3000; i++) {
                    runRemote[i] = base + runAt + 8L * i;
                    runLocal[i] = runFrom + 8L * i;
                    runLengths[i] = 8;
                }
                final byte[] runFill = new byte[(int) region];
                random.nextBytes(runFill);
                local.copyFrom(MemorySegment.ofArray(runFill));
                System.arraycopy(runFill, (int) runFrom, model, (int) runAt, 24_000);
                vis.putVector(peer, 3000, runRemote, runLengths, local, 3000, runLocal, runLengths);
                rma.get(image, 0, peer, base, region);
                assertArrayEquals(model, image.toArray(ValueLayout.JAVA_BYTE), "after the put of one run");
                // a shape of 8-byte elements: 50 a row 16 bytes apart, 40 rows, 6 planes in reverse order
                final long[] count = {50, 40, 6};
                final long[] rStrides = {16, 808, -32_400};
                final long[] lStrides = {8, 400, 16_000};
                final long rBase = 5 * 32_400 + random.nextInt(8);
                final byte[] fill = new byte[(int) region];
                random.nextBytes(fill);
                local.copyFrom(MemorySegment.ofArray(fill));
                final long[] index = new long[3];
                for (int e = 0; e < 12_000; e++) {
                    final long r = rBase + index[0] * rStrides[0] + index[1] * rStrides[1] + index[2] * rStrides[2];
                    final long l = index[0] * lStrides[0] + index[1] * lStrides[1] + index[2] * lStrides[2];
                    System.arraycopy(fill, (int) l, model, (int) r, 8);
                    for (int k = 0; k < 3 && ++index[k] == count[k]; k++) {
                        index[k] = 0;
                    }
                }
                final int f = form;
                call(f, () -> vis.putStridedNb(peer, base + rBase, rStrides, local, 0, lStrides, 8, count, 3),
                    () -> vis.putStrided(peer, base + rBase, rStrides, local, 0, lStrides, 8, count, 3),
                    () -> vis.putStridedNbi(peer, base + rBase, rStrides, local, 0, lStrides, 8, count, 3), client);
                rma.get(image, 0, peer, base, region);
                assertArrayEquals(model, image.toArray(ValueLayout.JAVA_BYTE), "after the strided put, form " + f);
                final MemorySegment got = Arena.ofShared().allocate(region);
                call(f, () -> vis.getStridedNb(got, 0, lStrides, peer, base + rBase, rStrides, 8, count, 3),
                    () -> vis.getStrided(got, 0, lStrides, peer, base + rBase, rStrides, 8, count, 3),
                    () -> vis.getStridedNbi(got, 0, lStrides, peer, base + rBase, rStrides, 8, count, 3), client);
                assertArrayEquals(local.asSlice(0, 6 * 16_000).toArray(ValueLayout.JAVA_BYTE),
                    got.asSlice(0, 6 * 16_000).toArray(ValueLayout.JAVA_BYTE), "after the strided get, form " + f);
            }
            client.barrier();
        });
    }

    /** Runs a transfer in form 0 (NB, awaited), 1 (blocking) or 2 (NBI, then the wait for both kinds). */
    private static void call(int form, java.util.function.Supplier<org.gexj.Event> nb, Runnable blocking,
                             Runnable nbi, Client client) {
        switch (form) {
            case 0 -> nb.get().await();
            case 1 -> blocking.run();
            default -> {
                nbi.run();
                client.nbiWait(Ec.PUT | Ec.GET);
            }
        }
    }

    /**
     * Strided levels that are contiguous on both sides move as larger blocks: a 3-level put whose two lowest levels
     * are dense on both sides, and whose top level skips, lands where the contiguous copies would.
     */
    @Test
    void denseLowLevelsOfAStridedPutMoveAsBlocks() {
        job(2, client -> {
            final Vis vis = Vis.of(client);
            final Rma rma = Rma.of(client);
            client.attachSegment(SEGMENT);
            final int peer = (client.rank() + 1) % 2;
            final long base = client.rank() * (SEGMENT / 2);
            final MemorySegment src = Arena.ofShared().allocate(3 * 4 * 8 * 5);
            Patterns.fill(src, 0, src.byteSize(), 40 + client.rank());
            // elements of 8 bytes, 4 per row, 5 rows per plane (dense: 160 bytes), 3 planes 1000 bytes apart remotely
            vis.putStrided(peer, base, new long[] {8, 32, 1000}, src, 0, new long[] {8, 32, 160}, 8,
                new long[] {4, 5, 3}, 3);
            final MemorySegment back = Arena.ofShared().allocate(160);
            for (int plane = 0; plane < 3; plane++) {
                rma.get(back, 0, peer, base + 1000L * plane, 160);
                assertArrayEquals(src.asSlice(160L * plane, 160).toArray(ValueLayout.JAVA_BYTE),
                    back.toArray(ValueLayout.JAVA_BYTE), "plane " + plane);
            }
            client.barrier();
        });
    }

    /** Bad input: each call throws naming the bad value, and neither side's memory changes. */
    @Test
    void badInputIsRefusedAndMovesNothing() {
        job(2, client -> {
            final Vis vis = Vis.of(client);
            final MemorySegment mine = client.attachSegment(SEGMENT).memory();
            mine.fill((byte) 5);
            final int peer = (client.rank() + 1) % 2;
            final MemorySegment local = Arena.ofShared().allocate(1024);
            local.fill((byte) 6);
            client.barrier();
            final long[] two = {0, 100};
            final long[] ten = {10, 10};
            message(() -> vis.putVector(peer, 2, new long[] {0, 5}, ten, local, 2, two, ten), "overlap");
            message(() -> vis.putVector(peer, 2, two, ten, local, 2, two, new long[] {10, 11}), "equal");
            message(() -> vis.putVector(peer, 3, two, ten, local, 2, two, ten), "count 3");
            message(() -> vis.putVector(peer, 2, new long[] {0, SEGMENT - 5}, ten, local, 2, two, ten),
                String.valueOf(SEGMENT));
            message(() -> vis.putVector(peer, 2, two, ten, local, 2, new long[] {0, 1020}, ten), "1024");
            message(() -> vis.putVector(peer, 2, two, new long[] {10, -10}, local, 2, two, ten), "-10");
            message(() -> vis.putVector(peer, 2, two, new long[] {Long.MAX_VALUE, 1}, local, 2, two, ten),
                "beyond " + Long.MAX_VALUE);
            message(() -> vis.getVector(local, 2, new long[] {0, 5}, ten, peer, 2, two, ten), "overlap");
            message(() -> vis.getVector(local.asReadOnly(), 2, two, ten, peer, 2, two, ten), "read-only");
            message(() -> vis.putIndexed(peer, 2, two, 10, local, 3, new long[] {0, 1, 2}, 10), "equal");
            message(() -> vis.putIndexed(peer, 2, new long[] {0, 4}, 8, local, 1, two, 16), "overlap");
            message(() -> vis.putStrided(peer, 0, new long[] {0}, local, 0, new long[] {8}, 8, new long[] {2}, 1),
                "overlap");
            message(() -> vis.putStrided(peer, 0, new long[] {8}, local, 0, new long[] {8}, 8, new long[] {2}, 2),
                "stridelevels 2");
            message(() -> vis.putStrided(peer, 0, new long[] {8}, local, 0, new long[] {8}, -1, new long[] {2}, 1),
                "-1");
            message(() -> vis.putStrided(peer, SEGMENT - 8, new long[] {8}, local, 0, new long[] {8}, 8,
                new long[] {2}, 1), String.valueOf(SEGMENT));
            message(() -> vis.putVector(2, 2, two, ten, local, 2, two, ten), "rank 2");
            // one piece a side, which smp copies without building the general path's list
            final long[] zero = {0};
            final long[] eight = {8};
            final long[] one = {1};
            final String end = String.valueOf(SEGMENT);
            message(() -> vis.putVector(peer, 1, new long[] {SEGMENT - 4}, eight, local, 1, zero, eight), end);
            message(() -> vis.putVector(peer, 1, zero, eight, local, 1, new long[] {1020}, eight), "1024");
            message(() -> vis.putVector(peer, 1, zero, eight, local, 1, zero, new long[] {9}), "equal");
            message(() -> vis.putVector(peer, 1, zero, new long[] {-8}, local, 1, zero, new long[] {-8}), "-8");
            message(() -> vis.getVector(local.asReadOnly(), 1, zero, eight, peer, 1, zero, eight), "read-only");
            message(() -> vis.getVector(local, 1, zero, eight, peer, 1, new long[] {SEGMENT - 4}, eight), end);
            message(() -> vis.putIndexed(peer, 1, new long[] {SEGMENT - 4}, 8, local, 1, zero, 8), end);
            message(() -> vis.getIndexed(local, 1, new long[] {1020}, 8, peer, 1, zero, 8), "1024");
            message(() -> vis.putIndexed(peer, 1, zero, 8, local, 1, zero, 9), "equal");
            message(() -> vis.putStrided(peer, SEGMENT - 4, eight, local, 0, eight, 8, one, 1), end);
            message(() -> vis.getStrided(local, 1020, eight, peer, 0, eight, 8, one, 1), "1024");
            message(() -> vis.putStrided(peer, 0, eight, local, 0, eight, -1, one, 1), "-1");
            message(() -> vis.putStrided(peer, 0, eight, local, 0, eight, 8, one, 2), "stridelevels 2");
            // contiguous on both sides, which smp copies as one run
            final long[] rows = {8, 32};
            final long[] shape = {4, 3};
            message(() -> vis.putStrided(peer, SEGMENT - 64, rows, local, 0, rows, 8, shape, 2), end);
            message(() -> vis.getStrided(local, 960, rows, peer, 0, rows, 8, shape, 2), "1024");
            assertThrows(NullPointerException.class, () -> vis.putIndexed(peer, 1, zero, 8, null, 1, zero, 8));
            assertThrows(NullPointerException.class, () -> vis.putVector(peer, 2, two, ten, null, 2, two, ten));
            // empty operations move nothing and need no buffer
            vis.putVector(peer, 0, two, ten, null, 0, two, ten);
            vis.putStridedNb(peer, 0, new long[] {8}, null, 0, new long[] {8}, 8, new long[] {0}, 1).await();
            client.barrier();
            for (long i = 0; i < SEGMENT; i++) {
                if (mine.get(ValueLayout.JAVA_BYTE, i) != 5) {
                    throw new AssertionError("segment byte " + i + " changed by a refused call");
                }
            }
            for (long i = 0; i < local.byteSize(); i++) {
                if (local.get(ValueLayout.JAVA_BYTE, i) != 6) {
                    throw new AssertionError("local byte " + i + " changed by a refused call");
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
