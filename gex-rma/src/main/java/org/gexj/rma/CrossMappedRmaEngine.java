package org.gexj.rma;

import org.agrona.UnsafeApi;
import org.gexj.Event;
import org.gexj.internal.PayloadCopy;
import org.gexj.spi.Conduit;

import java.lang.foreign.MemorySegment;

/**
 * RMA on conduits that map every peer's segment into this process (smp): a put or get is one memory copy,
 * complete at return.
 *
 * <p>When the caller's buffer is native, alive, accessible from this thread and (for a get) writable, the copy takes
 * raw addresses, after {@link Rma} has checked both ranges: unsafe loads and stores up to {@link #SMALL_COPY_MAX}
 * bytes, the JDK's copy stub up to {@link #STUB_COPY_MAX}, the C library's {@code memcpy} above (see
 * {@link #copied}; {@link Vis} chunks from {@link #VIS_MEMCPY_MIN}). The peer's segment needs no check: the conduit
 * maps it for the client's life, and {@link Rma} refuses every call once the client is closed.
 * {@link MemorySegment#copy} is one method for every copy in the process, so its type profile sees heap, native and
 * mapped segments alike and C2 leaves virtual calls in it: 8 bytes took 10-15 ns per put in testsmall (4 ns in a
 * program that copies only one kind of segment, 16-20 after it has copied the others), 64 bytes 17-25 ns. Heap,
 * closed or confined buffers and overlapping ranges go to {@link PayloadCopy}, which checks as the JDK does. As with
 * the smp rings, closing an arena while another thread copies from it is a race the caller must not start.
 */
final class CrossMappedRmaEngine implements RmaEngine {
    /**
     * The largest copy done with unsafe loads and stores. In testsmall's loops, once C2 had compiled them, puts of 64
     * to 2048 bytes took 3-12 ns with the JDK's copy stub above it, and 6-17 ns with {@code memcpy}.
     */
    static final long SMALL_COPY_MAX = 32;
    /**
     * The largest copy done with the JDK's copy stub, above {@link #SMALL_COPY_MAX}; larger ones call {@code memcpy}.
     * Alone, the stub copies 4 KiB in 17 ns against {@code memcpy}'s 20 and ties from 8 KiB on; in testlarge's loops,
     * where C2 hoists the checks across the stub but not across the down call, 4-16 KiB puts and gets took 4-10% less
     * than with {@code memcpy} from 4 KiB (AM payloads, which the other core reads at once, take it from
     * {@link PayloadCopy#MEMCPY_MIN}).
     */
    static final long STUB_COPY_MAX = 16384;
    /**
     * A {@link Vis} chunk from this size calls {@code memcpy}, unless the whole transfer fits L1
     * ({@link #VIS_L1_BYTES}): the JDK's stub is the faster where the same lines are copied from L1 again and again
     * (testlarge's puts: 4 KiB in 17 ns against 28), and the slower for 4 KiB chunks one after another from L2 (58-60
     * ns against 33 in a scratch loop). Below it, chunks take the stub: in testvisperf, 512-byte chunks took 12-16 %
     * less time with it than with {@code memcpy} from 256 bytes, once the loop of the stub's pieces chose no size in
     * it ({@link #copyPairedStub}).
     */
    static final long VIS_MEMCPY_MIN = 4096;
    static final long VIS_L1_BYTES = 32768;

    private final Conduit conduit;
    private final int size;
    private MemorySegment[] peers;

    CrossMappedRmaEngine(Conduit conduit, int size) {
        this.conduit = conduit;
        this.size = size;
    }

    /** Looked up on first use: Rma may be created before the segments are attached. */
    private MemorySegment peer(int rank) {
        MemorySegment[] p = peers;
        if (p == null) {
            p = new MemorySegment[size];
            for (int r = 0; r < size; r++) {
                p[r] = conduit.peerSegment(r);
            }
            peers = p;
        }
        return p[rank];
    }

    @Override
    public void put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, Event completion,
                    Event local) {
        if (nbytes == 0) {
            return; // src may be null
        }
        final MemorySegment target = peer(peer);
        if (!direct(src) || !copied(src.address() + srcOffset, target.address() + remoteOffset, nbytes)) {
            PayloadCopy.copy(src, srcOffset, target, remoteOffset, nbytes);
        }
    }

    @Override
    public void get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, Event completion) {
        if (nbytes == 0) {
            return; // dst may be null
        }
        final MemorySegment source = peer(peer);
        if (!direct(dst) || dst.isReadOnly()
            || !copied(source.address() + remoteOffset, dst.address() + dstOffset, nbytes)) {
            PayloadCopy.copy(source, remoteOffset, dst, dstOffset, nbytes);
        }
    }

    /**
     * The chunks of a {@link Vis} plan between {@code peer}'s segment and {@code buffer} (checked by {@code Vis}), each
     * copied as {@link #put} or {@link #get} would, with the peer's segment and the buffer's checks taken once.
     */
    void copyPieces(boolean put, int peer, VisPlan plan, MemorySegment buffer) {
        final MemorySegment target = peer(peer);
        final boolean direct = direct(buffer) && (put || !buffer.isReadOnly());
        final long there = target.address();
        final long here = direct ? buffer.address() : 0;
        for (int i = 0; i < plan.chunks; i++) {
            final long n = plan.length[i];
            final long remote = plan.remote[i];
            final long local = plan.local[i];
            if (!direct || !copied(put ? here + local : there + remote, put ? there + remote : here + local, n,
                visMemcpyMin(plan.bytes))) {
                if (put) {
                    PayloadCopy.copy(buffer, local, target, remote, n);
                } else {
                    PayloadCopy.copy(target, remote, buffer, local, n);
                }
            }
        }
    }

    /**
     * A strided transfer {@link VisDirect} checked: elements of {@code elem} bytes at every index of levels
     * {@code first} to {@code levels - 1}, the lowest of them in a tight loop.
     *
     * @return false, having copied nothing, for a buffer this class does not copy directly (heap, closed, confined,
     *         read-only for a get): the general path then checks and copies it
     */
    boolean copyStrided(boolean put, int peer, MemorySegment buffer, long remoteBase, long[] remoteStrides,
                        long localBase, long[] localStrides, long elem, long[] count, int first, int levels) {
        if (!direct(buffer) || !put && buffer.isReadOnly()) {
            return false;
        }
        final MemorySegment target = peer(peer);
        final long there = target.address();
        final long here = buffer.address();
        final long inner = first < levels ? count[first] : 1;
        final long remoteStep = first < levels ? remoteStrides[first] : 0;
        final long localStep = first < levels ? localStrides[first] : 0;
        long outer = 1;
        for (int k = first + 1; k < levels; k++) {
            outer *= count[k];
        }
        final long memcpyMin = visMemcpyMin(elem * inner * outer);
        final boolean stub = elem > SMALL_COPY_MAX && elem < memcpyMin;
        // one level above the inner one (testvisperf's shapes, most others): its index is o, no division
        final boolean oneOuter = first + 2 == levels;
        for (long o = 0; o < outer; o++) {
            long remote = remoteBase;
            long local = localBase;
            if (oneOuter) {
                remote += o * remoteStrides[first + 1];
                local += o * localStrides[first + 1];
            } else {
                long rest = o;
                for (int k = first + 1; k < levels; k++) {
                    final long index = rest % count[k];
                    rest /= count[k];
                    remote += index * remoteStrides[k];
                    local += index * localStrides[k];
                }
            }
            if (stub) { // as copyPairedStub
                final long from = put ? here + local : there + remote;
                final long to = put ? there + remote : here + local;
                final long fromStep = put ? localStep : remoteStep;
                final long toStep = put ? remoteStep : localStep;
                for (long i = 0; i < inner; i++) {
                    UnsafeApi.copyMemory(from + i * fromStep, to + i * toStep, elem);
                }
                continue;
            }
            for (long i = 0; i < inner; i++) {
                if (!copied(put ? here + local : there + remote, put ? there + remote : here + local, elem,
                    memcpyMin)) {
                    if (put) {
                        PayloadCopy.copy(buffer, local, target, remote, elem);
                    } else {
                        PayloadCopy.copy(target, remote, buffer, local, elem);
                    }
                }
                remote += remoteStep;
                local += localStep;
            }
        }
        return true;
    }

    /**
     * A vector or indexed transfer {@link VisDirect} checked: piece i of {@code lengths[i]} bytes (or {@code length}
     * each) between {@code remoteOffsets[i]} and {@code localOffsets[i]}.
     *
     * @return false, having copied nothing, for a buffer this class does not copy directly, as {@link #copyStrided}
     */
    boolean copyPaired(boolean put, int peer, MemorySegment buffer, int count, long[] remoteOffsets,
                       long[] localOffsets, long[] lengths, long length) {
        if (!direct(buffer) || !put && buffer.isReadOnly()) {
            return false;
        }
        // by the first piece, as if all were as long: one choice a call
        final long first = lengths == null ? length : lengths[0];
        if (first >= VIS_MEMCPY_MIN && visMemcpyMin(first * count) == VIS_MEMCPY_MIN) {
            copyPairedLarge(put, peer, buffer, count, remoteOffsets, localOffsets, lengths, length);
            return true;
        }
        if (first > SMALL_COPY_MAX) {
            copyPairedStub(put, peer, buffer, count, remoteOffsets, localOffsets, lengths, length);
            return true;
        }
        final MemorySegment target = peer(peer);
        final long there = target.address();
        final long here = buffer.address();
        for (int i = 0; i < count; i++) {
            final long n = lengths == null ? length : lengths[i];
            final long remote = remoteOffsets[i];
            final long local = localOffsets[i];
            if (n > 0 && !copied(put ? here + local : there + remote, put ? there + remote : here + local, n)) {
                if (put) {
                    PayloadCopy.copy(buffer, local, target, remote, n);
                } else {
                    PayloadCopy.copy(target, remote, buffer, local, n);
                }
            }
        }
        return true;
    }

    /**
     * {@link #copyPaired}'s loop where the first piece has {@link #VIS_MEMCPY_MIN} bytes or more, apart so that the
     * loop of small pieces keeps its code (a loop for both made 8-byte pieces 1.2-2 times as slow).
     */
    private void copyPairedLarge(boolean put, int peer, MemorySegment buffer, int count, long[] remoteOffsets,
                                 long[] localOffsets, long[] lengths, long length) {
        final MemorySegment target = peer(peer);
        final long there = target.address();
        final long here = buffer.address();
        for (int i = 0; i < count; i++) {
            final long n = lengths == null ? length : lengths[i];
            final long remote = remoteOffsets[i];
            final long local = localOffsets[i];
            if (n > 0 && !copied(put ? here + local : there + remote, put ? there + remote : here + local, n,
                VIS_MEMCPY_MIN)) {
                if (put) {
                    PayloadCopy.copy(buffer, local, target, remote, n);
                } else {
                    PayloadCopy.copy(target, remote, buffer, local, n);
                }
            }
        }
    }

    /**
     * {@link #copyPaired}'s pieces where the first is of 33 bytes up to {@code memcpy}'s sizes: every piece by the
     * JDK's copy stub (overlap-safe, any length), with no choice of size in the loop. {@link #copied}'s choice there
     * cost more than the copy: 64-byte pieces took 3.9 ns each with it and 2.1 without, in a scratch loop of 16 to
     * 1024.
     */
    private void copyPairedStub(boolean put, int peer, MemorySegment buffer, int count, long[] remoteOffsets,
                                long[] localOffsets, long[] lengths, long length) {
        final long there = peer(peer).address();
        final long here = buffer.address();
        final long[] fromOffsets = put ? localOffsets : remoteOffsets;
        final long[] toOffsets = put ? remoteOffsets : localOffsets;
        final long from = put ? here : there;
        final long to = put ? there : here;
        if (lengths == null) {
            for (int i = 0; i < count; i++) {
                UnsafeApi.copyMemory(from + fromOffsets[i], to + toOffsets[i], length);
            }
        } else {
            for (int i = 0; i < count; i++) {
                UnsafeApi.copyMemory(from + fromOffsets[i], to + toOffsets[i], lengths[i]);
            }
        }
    }

    /** A buffer this class copies from or to itself: one the JDK's copy would not throw for. */
    private static boolean direct(MemorySegment buffer) {
        return buffer.isNative() && PayloadCopy.accessible(buffer);
    }

    /**
     * Copies between native ranges that the callers have checked, as {@code memmove} would. Up to
     * {@link #SMALL_COPY_MAX} bytes every load comes before every store, so overlapping ranges need no test; that code
     * ({@link PayloadCopy#copySmall}'s) is in this one method, hot whatever the sizes, so that C2 inlines all of it (a
     * helper per size class stayed a call where its sizes were rare when the caller was compiled, and then no check was
     * hoisted out of the loop).
     * Up to {@link #STUB_COPY_MAX} the JDK's copy stub ({@code Unsafe.copyMemory}, overlap-safe): C2 calls it as a
     * leaf and still hoists the checks, which it does not across the C library's {@code memcpy} (a down call). Above,
     * {@code memcpy}, for which overlapping ranges go to {@link PayloadCopy}.
     *
     * @return false, having copied nothing, if the ranges overlap and take {@code memcpy}
     */
    private static boolean copied(long from, long to, long nbytes) {
        return copied(from, to, nbytes, STUB_COPY_MAX + 1);
    }

    /** From which size a {@link Vis} chunk calls memcpy, in a transfer of {@code total} bytes. */
    private static long visMemcpyMin(long total) {
        return total <= VIS_L1_BYTES ? STUB_COPY_MAX + 1 : VIS_MEMCPY_MIN;
    }

    /** {@link #copied(long, long, long)}, with {@code memcpy} from {@code memcpyMin} bytes up instead. */
    private static boolean copied(long from, long to, long nbytes, long memcpyMin) {
        if (nbytes > SMALL_COPY_MAX) {
            if (nbytes < memcpyMin) {
                UnsafeApi.copyMemory(from, to, nbytes);
                return true;
            }
            if (from < to + nbytes && to < from + nbytes) {
                return false;
            }
            PayloadCopy.memcpy(to, from, nbytes);
        } else if (nbytes > 2 * Long.BYTES) {
            final long last = nbytes - Long.BYTES;
            final long a = UnsafeApi.getLong(from);
            final long b = UnsafeApi.getLong(from + Long.BYTES);
            final long c = UnsafeApi.getLong(from + last - Long.BYTES);
            final long d = UnsafeApi.getLong(from + last);
            UnsafeApi.putLong(to, a);
            UnsafeApi.putLong(to + Long.BYTES, b);
            UnsafeApi.putLong(to + last - Long.BYTES, c);
            UnsafeApi.putLong(to + last, d);
        } else if (nbytes >= Long.BYTES) {
            final long a = UnsafeApi.getLong(from);
            final long d = UnsafeApi.getLong(from + nbytes - Long.BYTES);
            UnsafeApi.putLong(to, a);
            UnsafeApi.putLong(to + nbytes - Long.BYTES, d);
        } else if (nbytes >= Integer.BYTES) {
            final int a = UnsafeApi.getInt(from);
            final int d = UnsafeApi.getInt(from + nbytes - Integer.BYTES);
            UnsafeApi.putInt(to, a);
            UnsafeApi.putInt(to + nbytes - Integer.BYTES, d);
        } else {
            final byte a = UnsafeApi.getByte(from);
            final byte m = UnsafeApi.getByte(from + (nbytes >> 1));
            final byte d = UnsafeApi.getByte(from + nbytes - 1);
            UnsafeApi.putByte(to, a);
            UnsafeApi.putByte(to + (nbytes >> 1), m);
            UnsafeApi.putByte(to + nbytes - 1, d);
        }
        return true;
    }

    @Override
    public boolean synchronous() {
        return true;
    }
}
