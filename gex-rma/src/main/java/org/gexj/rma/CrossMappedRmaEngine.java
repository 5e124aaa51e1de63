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
 * bytes, the C library's {@code memcpy} above. The peer's segment needs no check: the conduit maps it for the
 * client's life, and {@link Rma} refuses every call once the client is closed. {@link MemorySegment#copy} is one
 * method for every copy in the process, so its type profile sees heap, native and mapped segments alike and C2
 * leaves virtual calls in it: 8 bytes took 10-15 ns per put in testsmall (4 ns in a program that copies only one
 * kind of segment, 16-20 after it has copied the others), 64 bytes 17-25 ns. Heap, closed or confined buffers and
 * overlapping ranges go to {@link PayloadCopy}, which checks as the JDK does. As with the smp rings, closing an arena
 * while another thread copies from it is a race the caller must not start.
 */
final class CrossMappedRmaEngine implements RmaEngine {
    /**
     * The largest copy done with unsafe loads and stores. Above it the C library's {@code memcpy}, called critical:
     * 3-8 ns from 64 to 512 bytes where the JDK's copy stub ({@code Unsafe.copyMemory}) took 4-12 ns.
     */
    static final long SMALL_COPY_MAX = 32;

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

    /** A buffer this class copies from or to itself: one the JDK's copy would not throw for. */
    private static boolean direct(MemorySegment buffer) {
        return buffer.isNative() && buffer.scope().isAlive()
            && buffer.isAccessibleBy(Thread.currentThread());
    }

    /**
     * Copies between native ranges that the callers have checked, unless they overlap (memmove semantics are
     * {@link PayloadCopy}'s). @return false, having copied nothing, if they overlap
     */
    private static boolean copied(long from, long to, long nbytes) {
        if (from < to + nbytes && to < from + nbytes) {
            return false;
        }
        if (nbytes > SMALL_COPY_MAX) {
            PayloadCopy.memcpy(to, from, nbytes);
            return true;
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
        return true;
    }

    @Override
    public boolean synchronous() {
        return true;
    }
}
