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
 * <p>Up to {@link #SMALL_COPY_MAX} bytes between native segments the copy is a few unsafe loads and stores, after
 * {@link Rma} has checked both ranges and here each segment's liveness, thread and (the destination's) writability.
 * {@link MemorySegment#copy} is one method shared by every copy in the process, so its type profile sees heap, native
 * and mapped segments alike, and C2 compiles it with virtual calls: 8 bytes took 10-15 ns per put in testsmall (4
 * ns in a program that copies only one kind of segment, 16-20 after it has copied the others), and 5-8 ns this way
 * (GASNet's memcpy: 3-5). As with the smp rings, closing an arena while another thread copies from it is a race the
 * caller must not start.
 */
final class CrossMappedRmaEngine implements RmaEngine {
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
        copy(src, srcOffset, peer(peer), remoteOffset, nbytes);
    }

    @Override
    public void get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, Event completion) {
        if (nbytes == 0) {
            return; // dst may be null
        }
        copy(peer(peer), remoteOffset, dst, dstOffset, nbytes);
    }

    /** The largest copy done with unsafe accesses: at 64 bytes the JDK's copy was as fast. */
    static final long SMALL_COPY_MAX = 32;

    /** Ranges checked by {@link Rma}; anything the unsafe path cannot vouch for goes to {@link PayloadCopy}. */
    static void copy(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long nbytes) {
        if (nbytes > SMALL_COPY_MAX || !usable(src) || !usable(dst) || dst.isReadOnly()) {
            PayloadCopy.copy(src, srcOffset, dst, dstOffset, nbytes);
            return;
        }
        final long from = src.address() + srcOffset;
        final long to = dst.address() + dstOffset;
        if (from < to + nbytes && to < from + nbytes) {
            PayloadCopy.copy(src, srcOffset, dst, dstOffset, nbytes); // overlapping: memmove semantics
            return;
        }
        long o = 0;
        for (; o + Long.BYTES <= nbytes; o += Long.BYTES) {
            UnsafeApi.putLong(to + o, UnsafeApi.getLong(from + o));
        }
        if ((nbytes & 4) != 0) {
            UnsafeApi.putInt(to + o, UnsafeApi.getInt(from + o));
            o += 4;
        }
        if ((nbytes & 2) != 0) {
            UnsafeApi.putShort(to + o, UnsafeApi.getShort(from + o));
            o += 2;
        }
        if ((nbytes & 1) != 0) {
            UnsafeApi.putByte(to + o, UnsafeApi.getByte(from + o));
        }
    }

    /** Native, alive and accessible from this thread: what the JDK's copy would otherwise throw for. */
    private static boolean usable(MemorySegment segment) {
        return segment.isNative() && segment.scope().isAlive() && segment.isAccessibleBy(Thread.currentThread());
    }

    @Override
    public boolean synchronous() {
        return true;
    }
}
