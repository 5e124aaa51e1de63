package org.gexj.rma;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.Segment;
import org.gexj.am.Am;
import org.gexj.internal.CoreAccess;

import java.lang.foreign.MemorySegment;

/**
 * Non-contiguous put and get ({@code gex_VIS}): vector, indexed and strided, blocking, NB and NBI, between the
 * segment of one rank and one local buffer. Remote places are offsets into the target's segment, local ones offsets
 * into {@code src} (put) or {@code dst} (get); the data flows in order through the destination's pieces as through
 * the source's.
 * <ul>
 *   <li>Vector ({@code gex_VIS_Vector*}): lists of (offset, length) pieces on each side; the totals are equal.</li>
 *   <li>Indexed ({@code gex_VIS_Indexed*}): lists of offsets, every piece of one side the same length; the totals are
 *       equal.</li>
 *   <li>Strided ({@code gex_VIS_Strided*}, GASNet-EX's form): elements of {@code elemSize} bytes at
 *       {@code base + sum(i[k] * strides[k])}, {@code 0 <= i[k] < count[k]} for each of {@code strideLevels} levels,
 *       the lowest level fastest; strides may be negative (transposes, reflections); the same shape on both sides.</li>
 * </ul>
 * Every piece is checked before anything moves: a bad count, length, total, stride, a piece outside the target's
 * segment or the local buffer, or destination pieces that overlap throws {@link IllegalArgumentException} naming it.
 * Overlapping source pieces are fine. The lists are read during the call only (GASNet keeps vector and indexed
 * metadata until completion; here nothing needs it after the call returns). Completion means complete at the target
 * (put) or in {@code dst} (get), and a put's source may be reused then (GASNet-EX's default, without
 * {@code GEX_FLAG_ENABLE_LEAF_LC}); NBI operations complete with {@link Ec#PUT} or {@link Ec#GET}.
 *
 * <p>How the data moves, chosen per operation: on smp each contiguous chunk is a copy; where the conduit has RDMA
 * (ofi, ibv), each chunk is an RDMA operation if the chunks average at least {@code GEX_VIS_PACK_BELOW} bytes
 * (default 2048), else they are packed into active messages ({@link VisAmEngine}), as on conduits whose RMA is itself
 * active messages (udp). {@code GEX_VIS=pieces} or {@code GEX_VIS=packed} forces either (tests, comparison).
 */
public final class Vis {
    private static final CoreAccess CORE = CoreAccess.get();
    private static final int BLOCKING = 0;
    private static final int NB = 1;
    private static final int NBI = 2;

    private final Client client;
    private final Rma rma;
    private final VisAmEngine packed;
    /** {@link #NEVER}, {@link #ALWAYS} or {@link #BY_SIZE}: GEX_VIS and the conduit, decided once. */
    private final int packing;
    private static final int NEVER = 0;
    private static final int ALWAYS = 1;
    /** Packs where chunks average under {@code GEX_VIS_PACK_BELOW} bytes. */
    private static final int BY_SIZE = 2;
    private final long packBelow;
    private final ThreadLocal<VisPlan> plans = ThreadLocal.withInitial(VisPlan::new);
    private final ThreadLocal<Event> blocking;

    private Vis(Client client) {
        this.client = client;
        this.rma = Rma.of(client);
        this.packed = new VisAmEngine(Am.of(client));
        final String mode = client.config().get("GEX_VIS", "auto");
        this.packing = switch (mode) {
            case "packed" -> ALWAYS;
            case "pieces" -> NEVER;
            case "auto" -> rma.copiesDirectly() ? NEVER : rma.overActiveMessages() ? ALWAYS : BY_SIZE;
            default -> throw new IllegalArgumentException("GEX_VIS=" + mode + ": allowed are auto, pieces and packed");
        };
        this.packBelow = client.config().getLong("GEX_VIS_PACK_BELOW", 2048, 0, 1L << 30);
        this.blocking = ThreadLocal.withInitial(() -> CORE.newEvent(client));
    }

    /** The client's VIS layer, which {@code Gex.init} created on every rank. */
    public static Vis of(Client client) {
        return CORE.extension(client, Vis.class, Vis::new);
    }

    // ------------------------------------------------------------------------------------------ vector

    /** Blocking vector put: the local pieces' bytes into {@code rank}'s remote pieces. */
    public void putVector(int rank, int dstCount, long[] dstOffsets, long[] dstLengths, MemorySegment src,
                          int srcCount, long[] srcOffsets, long[] srcLengths) {
        vector(BLOCKING, true, rank, dstCount, dstOffsets, dstLengths, src, srcCount, srcOffsets, srcLengths);
    }

    /** Non-blocking vector put. */
    public Event putVectorNb(int rank, int dstCount, long[] dstOffsets, long[] dstLengths, MemorySegment src,
                             int srcCount, long[] srcOffsets, long[] srcLengths) {
        return vector(NB, true, rank, dstCount, dstOffsets, dstLengths, src, srcCount, srcOffsets, srcLengths);
    }

    /** Implicit-handle vector put ({@link Ec#PUT}). */
    public void putVectorNbi(int rank, int dstCount, long[] dstOffsets, long[] dstLengths, MemorySegment src,
                             int srcCount, long[] srcOffsets, long[] srcLengths) {
        vector(NBI, true, rank, dstCount, dstOffsets, dstLengths, src, srcCount, srcOffsets, srcLengths);
    }

    /** Blocking vector get: {@code rank}'s remote pieces' bytes into the local pieces of {@code dst}. */
    public void getVector(MemorySegment dst, int dstCount, long[] dstOffsets, long[] dstLengths, int rank,
                          int srcCount, long[] srcOffsets, long[] srcLengths) {
        vector(BLOCKING, false, rank, srcCount, srcOffsets, srcLengths, dst, dstCount, dstOffsets, dstLengths);
    }

    /** Non-blocking vector get. */
    public Event getVectorNb(MemorySegment dst, int dstCount, long[] dstOffsets, long[] dstLengths, int rank,
                             int srcCount, long[] srcOffsets, long[] srcLengths) {
        return vector(NB, false, rank, srcCount, srcOffsets, srcLengths, dst, dstCount, dstOffsets, dstLengths);
    }

    /** Implicit-handle vector get ({@link Ec#GET}). */
    public void getVectorNbi(MemorySegment dst, int dstCount, long[] dstOffsets, long[] dstLengths, int rank,
                             int srcCount, long[] srcOffsets, long[] srcLengths) {
        vector(NBI, false, rank, srcCount, srcOffsets, srcLengths, dst, dstCount, dstOffsets, dstLengths);
    }

    // ------------------------------------------------------------------------------------------ indexed

    /** Blocking indexed put: {@code srcCount} local pieces of {@code srcLength} into {@code dstCount} remote ones. */
    public void putIndexed(int rank, int dstCount, long[] dstOffsets, long dstLength, MemorySegment src, int srcCount,
                           long[] srcOffsets, long srcLength) {
        indexed(BLOCKING, true, rank, dstCount, dstOffsets, dstLength, src, srcCount, srcOffsets, srcLength);
    }

    /** Non-blocking indexed put. */
    public Event putIndexedNb(int rank, int dstCount, long[] dstOffsets, long dstLength, MemorySegment src,
                              int srcCount, long[] srcOffsets, long srcLength) {
        return indexed(NB, true, rank, dstCount, dstOffsets, dstLength, src, srcCount, srcOffsets, srcLength);
    }

    /** Implicit-handle indexed put ({@link Ec#PUT}). */
    public void putIndexedNbi(int rank, int dstCount, long[] dstOffsets, long dstLength, MemorySegment src,
                              int srcCount, long[] srcOffsets, long srcLength) {
        indexed(NBI, true, rank, dstCount, dstOffsets, dstLength, src, srcCount, srcOffsets, srcLength);
    }

    /** Blocking indexed get. */
    public void getIndexed(MemorySegment dst, int dstCount, long[] dstOffsets, long dstLength, int rank, int srcCount,
                           long[] srcOffsets, long srcLength) {
        indexed(BLOCKING, false, rank, srcCount, srcOffsets, srcLength, dst, dstCount, dstOffsets, dstLength);
    }

    /** Non-blocking indexed get. */
    public Event getIndexedNb(MemorySegment dst, int dstCount, long[] dstOffsets, long dstLength, int rank,
                              int srcCount, long[] srcOffsets, long srcLength) {
        return indexed(NB, false, rank, srcCount, srcOffsets, srcLength, dst, dstCount, dstOffsets, dstLength);
    }

    /** Implicit-handle indexed get ({@link Ec#GET}). */
    public void getIndexedNbi(MemorySegment dst, int dstCount, long[] dstOffsets, long dstLength, int rank,
                              int srcCount, long[] srcOffsets, long srcLength) {
        indexed(NBI, false, rank, srcCount, srcOffsets, srcLength, dst, dstCount, dstOffsets, dstLength);
    }

    // ------------------------------------------------------------------------------------------ strided

    /** Blocking strided put. */
    public void putStrided(int rank, long dstOffset, long[] dstStrides, MemorySegment src, long srcOffset,
                           long[] srcStrides, long elemSize, long[] count, int strideLevels) {
        strided(BLOCKING, true, rank, dstOffset, dstStrides, src, srcOffset, srcStrides, elemSize, count,
            strideLevels);
    }

    /** Non-blocking strided put. */
    public Event putStridedNb(int rank, long dstOffset, long[] dstStrides, MemorySegment src, long srcOffset,
                              long[] srcStrides, long elemSize, long[] count, int strideLevels) {
        return strided(NB, true, rank, dstOffset, dstStrides, src, srcOffset, srcStrides, elemSize, count,
            strideLevels);
    }

    /** Implicit-handle strided put ({@link Ec#PUT}). */
    public void putStridedNbi(int rank, long dstOffset, long[] dstStrides, MemorySegment src, long srcOffset,
                              long[] srcStrides, long elemSize, long[] count, int strideLevels) {
        strided(NBI, true, rank, dstOffset, dstStrides, src, srcOffset, srcStrides, elemSize, count, strideLevels);
    }

    /** Blocking strided get. */
    public void getStrided(MemorySegment dst, long dstOffset, long[] dstStrides, int rank, long srcOffset,
                           long[] srcStrides, long elemSize, long[] count, int strideLevels) {
        strided(BLOCKING, false, rank, srcOffset, srcStrides, dst, dstOffset, dstStrides, elemSize, count,
            strideLevels);
    }

    /** Non-blocking strided get. */
    public Event getStridedNb(MemorySegment dst, long dstOffset, long[] dstStrides, int rank, long srcOffset,
                              long[] srcStrides, long elemSize, long[] count, int strideLevels) {
        return strided(NB, false, rank, srcOffset, srcStrides, dst, dstOffset, dstStrides, elemSize, count,
            strideLevels);
    }

    /** Implicit-handle strided get ({@link Ec#GET}). */
    public void getStridedNbi(MemorySegment dst, long dstOffset, long[] dstStrides, int rank, long srcOffset,
                              long[] srcStrides, long elemSize, long[] count, int strideLevels) {
        strided(NBI, false, rank, srcOffset, srcStrides, dst, dstOffset, dstStrides, elemSize, count, strideLevels);
    }

    // ------------------------------------------------------------------------------------------ the work

    private Event vector(int form, boolean put, int rank, int remoteCount, long[] remoteOffsets, long[] remoteLengths,
                         MemorySegment local, int localCount, long[] localOffsets, long[] localLengths) {
        begin(put);
        if (packing == NEVER && rma.copiesDirectly() && remoteCount == localCount && rank >= 0 && rank < client.size()
            && (remoteCount == 1 && one(remoteOffsets, remoteLengths) && one(localOffsets, localLengths)
                ? rma.copyOne(put, rank, local, remoteOffsets[0], localOffsets[0], remoteLengths[0], localLengths[0])
                : rma.copyPaired(put, rank, local, remoteCount, remoteOffsets, localOffsets, remoteLengths,
                    localLengths, 0))) {
            return form == NB ? Event.DONE : null;
        }
        final VisPlan plan = plans.get();
        if (packing != NEVER && remoteCount == localCount && rank >= 0 && rank < client.size()) {
            if (oneRun(plan, remoteCount, remoteOffsets, localOffsets, remoteLengths, localLengths, 0)) {
                return run(form, put, rank, plan, local);
            }
            final long bytes = packed.pairedBytes(put, client.segment().size(rank), local, remoteCount,
                remoteOffsets, localOffsets, remoteLengths, localLengths, 0);
            if (bytes > 0 && packs(bytes, remoteCount)) {
                return sendPaired(form, put, rank, local, remoteCount, remoteOffsets, localOffsets, remoteLengths, 0);
            }
        }
        plan.vector(remoteCount, remoteOffsets, remoteLengths, localCount, localOffsets, localLengths);
        return run(form, put, rank, plan, local);
    }

    private Event indexed(int form, boolean put, int rank, int remoteCount, long[] remoteOffsets, long remoteLength,
                          MemorySegment local, int localCount, long[] localOffsets, long localLength) {
        begin(put);
        if (packing == NEVER && rma.copiesDirectly() && remoteCount == localCount && remoteLength == localLength
            && rank >= 0 && rank < client.size()
            && (remoteCount == 1 && one(remoteOffsets, localOffsets)
                ? rma.copyOne(put, rank, local, remoteOffsets[0], localOffsets[0], remoteLength, localLength)
                : rma.copyPaired(put, rank, local, remoteCount, remoteOffsets, localOffsets, null, null,
                    remoteLength))) {
            return form == NB ? Event.DONE : null;
        }
        final VisPlan plan = plans.get();
        if (packing != NEVER && remoteCount == localCount && remoteLength == localLength && rank >= 0
            && rank < client.size()) {
            if (oneRun(plan, remoteCount, remoteOffsets, localOffsets, null, null, remoteLength)) {
                return run(form, put, rank, plan, local);
            }
            final long bytes = packed.pairedBytes(put, client.segment().size(rank), local, remoteCount,
                remoteOffsets, localOffsets, null, null, remoteLength);
            if (bytes > 0 && packs(bytes, remoteCount)) {
                return sendPaired(form, put, rank, local, remoteCount, remoteOffsets, localOffsets, null,
                    remoteLength);
            }
        }
        plan.indexed(remoteCount, remoteOffsets, remoteLength, localCount, localOffsets, localLength);
        return run(form, put, rank, plan, local);
    }

    private Event strided(int form, boolean put, int rank, long remoteBase, long[] remoteStrides, MemorySegment local,
                          long localBase, long[] localStrides, long elemSize, long[] count, int levels) {
        begin(put);
        if (packing == NEVER && rma.copiesDirectly() && rank >= 0 && rank < client.size()) {
            final long run = contiguousRun(remoteStrides, localStrides, elemSize, count, levels);
            if (run >= 0 ? rma.copyOne(put, rank, local, remoteBase, localBase, run, run)
                : rma.copyStrided(put, rank, local, remoteBase, remoteStrides, localBase, localStrides, elemSize,
                    count, levels)) {
                return form == NB ? Event.DONE : null;
            }
        }
        if (packing != NEVER && rank >= 0 && rank < client.size()) {
            final long elem = packed.stridedElement(put, client.segment().size(rank), local, remoteBase, remoteStrides,
                localBase, localStrides, elemSize, count, levels);
            if (elem > 0 && packs(elem, 1)) {
                if (!put) {
                    Rma.checkDestination(local, 0, local.byteSize());
                }
                final Event e = event(form, put);
                packed.startStrided(put, rank, local, remoteBase, remoteStrides, localBase, localStrides, elemSize,
                    count, levels, e);
                return awaitIfBlocking(form, e);
            }
        }
        final VisPlan plan = plans.get();
        plan.strided(remoteBase, remoteStrides, localBase, localStrides, elemSize, count, levels);
        return run(form, put, rank, plan, local);
    }

    /**
     * Lists that pair up into one run contiguous on both sides (each piece continuing the one before, as testvisperf's
     * at density 100 %) become {@code plan}'s one chunk, checked by {@link #run} as any plan: listed piece by piece, a
     * packed transfer spent its time building and sending the list. Two pieces that do not continue end the look at
     * once. @return whether {@code plan} now holds the run
     */
    private static boolean oneRun(VisPlan plan, int count, long[] remoteOffsets, long[] localOffsets, long[] lengths,
                                  long[] sameLengths, long length) {
        if (count < 2 || remoteOffsets == null || localOffsets == null || count > remoteOffsets.length
            || count > localOffsets.length || (lengths == null ? length <= 0 : sameLengths == null
            || count > lengths.length || count > sameLengths.length)) {
            return false;
        }
        long total = 0;
        for (int i = 0; i < count; i++) {
            final long n = lengths == null ? length : lengths[i];
            if (n <= 0 || lengths != null && sameLengths[i] != n || total > Long.MAX_VALUE - n || i > 0
                && (remoteOffsets[i] != remoteOffsets[0] + total || localOffsets[i] != localOffsets[0] + total)) {
                return false;
            }
            total += n;
        }
        plan.clear();
        plan.add(remoteOffsets[0], localOffsets[0], total);
        return true;
    }

    /** Whether both lists hold a first piece ({@link Rma#copyOne}'s case; the general path names a short one). */
    private static boolean one(long[] a, long[] b) {
        return a != null && a.length > 0 && b != null && b.length > 0;
    }

    /**
     * The bytes of a strided shape that is one contiguous run on both sides (each level of more than one element
     * strided by the bytes of the levels below it, as at testvisperf's density 100 %), or -1. A shape of one element
     * is one. Arrays shorter than the levels, a count below 1 or an overflow give -1, for the general path to name.
     */
    private static long contiguousRun(long[] remoteStrides, long[] localStrides, long elemSize, long[] count,
                                      int levels) {
        if (levels < 0 || count == null || remoteStrides == null || localStrides == null || levels > count.length
            || levels > remoteStrides.length || levels > localStrides.length || elemSize < 0) {
            return -1;
        }
        long bytes = elemSize;
        for (int k = 0; k < levels; k++) {
            final long c = count[k];
            if (c != 1 && (c < 1 || remoteStrides[k] != bytes || localStrides[k] != bytes
                || Math.multiplyHigh(bytes, c) != 0 || bytes * c < 0)) {
                return -1;
            }
            bytes *= c;
        }
        return bytes;
    }

    private void begin(boolean put) {
        CORE.checkOpenAndNotRestricted(client, put ? "a VIS put" : "a VIS get");
    }

    /** Checks the plan against both sides, then moves it in the form asked for. */
    private Event run(int form, boolean put, int rank, VisPlan plan, MemorySegment local) {
        final Segment segment = client.segment();
        segment.checkRemote(rank, 0, 0);
        if (plan.chunks > 0) {
            if (local == null) {
                throw new NullPointerException((put ? "src" : "dst") + " is null with " + plan.bytes
                    + " bytes to transfer");
            }
            if (!put) {
                Rma.checkDestination(local, 0, local.byteSize());
            }
        }
        plan.checkRanges(rank, segment.size(rank), local == null ? 0 : local.byteSize());
        plan.checkDisjoint(put);
        if (plan.chunks == 0) {
            return form == NB ? Event.DONE : null;
        }
        final boolean packing = packs(plan.bytes, plan.chunks);
        if (!packing && rma.copiesDirectly()) {
            rma.copyPieces(put, rank, plan, local);
            return form == NB ? Event.DONE : null;
        }
        final Event e = event(form, put);
        if (packing) {
            packed.start(put, rank, plan, local, e);
        } else {
            for (int i = 0; i < plan.chunks; i++) {
                piece(put, rank, plan, i, local, e);
            }
        }
        if (form == BLOCKING) {
            e.await();
        }
        return e;
    }

    /** Whether to pack {@code bytes} in {@code chunks} into active messages rather than move them a chunk at a time. */
    private boolean packs(long bytes, int chunks) {
        return packing == BY_SIZE ? bytes < packBelow * chunks : packing == ALWAYS;
    }

    /** The completion of a transfer in {@code form}: the thread's blocking event, a pooled NB one, or the NBI one. */
    private Event event(int form, boolean put) {
        return switch (form) {
            case BLOCKING -> blocking.get();
            case NB -> CORE.pooledEvent(client);
            default -> CORE.nbiEvent(client, put ? Ec.PUT : Ec.GET);
        };
    }

    /** Packs a transfer that {@link VisAmEngine#pairedBytes} accepted, in the form asked for. */
    private Event sendPaired(int form, boolean put, int rank, MemorySegment local, int count, long[] remoteOffsets,
                             long[] localOffsets, long[] lengths, long length) {
        if (!put) {
            Rma.checkDestination(local, 0, local.byteSize());
        }
        final Event e = event(form, put);
        packed.startPaired(put, rank, local, count, remoteOffsets, localOffsets, lengths, length, e);
        return awaitIfBlocking(form, e);
    }

    private static Event awaitIfBlocking(int form, Event e) {
        if (form == BLOCKING) {
            e.await();
        }
        return e;
    }

    private void piece(boolean put, int rank, VisPlan plan, int i, MemorySegment local, Event e) {
        if (put) {
            rma.putPiece(rank, plan.remote[i], local, plan.local[i], plan.length[i], e);
        } else {
            rma.getPiece(local, plan.local[i], rank, plan.remote[i], plan.length[i], e);
        }
    }
}
