package org.gexj.rdma;

import java.lang.foreign.MemorySegment;

/**
 * Memory registered with the NIC: the segment's registration, and the registrations an RMA operation makes for local
 * memory outside the segment ({@link #descriptor}, {@link #registerOwn}).
 *
 * <p>Threads: guarded by the {@link RdmaGuard} lock (callers hold it, or the conduit is not yet shared); the segment
 * is volatile, published by the attach.
 */
final class RdmaRegistrations {
    private final RdmaNic nic;
    private volatile MemorySegment segment;
    private long segmentDescriptor;

    RdmaRegistrations(RdmaNic nic) {
        this.nic = nic;
    }

    /** The attached segment, or null. */
    MemorySegment segment() {
        return segment;
    }

    /** The segment is attached, registered as {@code region}. */
    void segment(MemorySegment memory, RdmaRegion region) {
        segmentDescriptor = region.descriptor();
        segment = memory;
    }

    /**
     * The descriptor of local memory for an operation (under the lock): none (0) where the NIC needs no local
     * registration, else that of the segment if it contains the memory.
     *
     * @return the descriptor, or -1 if the memory needs a registration of its own ({@link #registerOwn})
     */
    long descriptor(long address, long nbytes) {
        if (!nic.localRegistration() || nbytes == 0) {
            return 0;
        }
        final MemorySegment seg = segment;
        if (seg != null && address >= seg.address() && address + nbytes <= seg.address() + seg.byteSize()) {
            return segmentDescriptor;
        }
        return -1;
    }

    /** A registration for one operation's memory (under the lock); the caller releases it. */
    RdmaRegion registerOwn(long address, long nbytes) {
        return nic.register(MemorySegment.ofAddress(address).reinterpret(nbytes), false, false);
    }
}
