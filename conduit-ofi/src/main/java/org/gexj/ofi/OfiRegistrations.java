package org.gexj.ofi;

import org.gexj.ofi.ffm.Fabric;
import org.gexj.ofi.ffm.FiDomain;

import java.lang.foreign.MemorySegment;

/**
 * Memory registered with the domain: the keys every registration asks for, the segment's registration, and the
 * registrations an RMA operation makes for local memory outside the segment ({@link #descriptor},
 * {@link #registerOwn}).
 *
 * <p>Threads: guarded by the {@link OfiGuard} lock (callers hold it, or the conduit is not yet shared); the segment
 * is volatile, published by the attach.
 */
final class OfiRegistrations {
    static final long SEGMENT_KEY = 1;
    private static final long FIRST_DYNAMIC_KEY = 2;

    private final OfiFabric fabric;
    private long nextKey = FIRST_DYNAMIC_KEY;
    private volatile MemorySegment segment;
    private MemorySegment segmentDescriptor = MemorySegment.NULL;

    OfiRegistrations(OfiFabric fabric) {
        this.fabric = fabric;
    }

    /** The key the next registration asks for (under the lock, or before the conduit is shared). */
    long key() {
        return nextKey++;
    }

    /** The attached segment, or null. */
    MemorySegment segment() {
        return segment;
    }

    /** The segment is attached, registered as {@code mr}. */
    void segment(MemorySegment memory, MemorySegment mr) {
        segmentDescriptor = FiDomain.descriptor(mr);
        segment = memory;
    }

    /**
     * The descriptor of local memory for an operation (under the lock): none where the provider needs no local
     * registration, else that of the segment if it contains the memory.
     *
     * @return the descriptor, or null if the memory needs a registration of its own ({@link #registerOwn})
     */
    MemorySegment descriptor(long address, long nbytes) {
        if (!fabric.requires(Fabric.FI_MR_LOCAL) || nbytes == 0) {
            return MemorySegment.NULL;
        }
        final MemorySegment seg = segment;
        if (seg != null && address >= seg.address() && address + nbytes <= seg.address() + seg.byteSize()) {
            return segmentDescriptor;
        }
        return null;
    }

    /** A registration for one operation's memory (under the lock); the caller closes it. */
    MemorySegment registerOwn(long address, long nbytes) {
        return fabric.register(MemorySegment.ofAddress(address).reinterpret(nbytes), key(), false);
    }
}
