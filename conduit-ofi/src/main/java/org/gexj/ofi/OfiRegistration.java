package org.gexj.ofi;

import org.gexj.ofi.ffm.FiDomain;
import org.gexj.spi.Registration;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/** Memory registered with the ofi domain by {@link OfiConduit#register}: its descriptor serves RMA from it. */
final class OfiRegistration implements Registration {
    private final MemorySegment memory;
    private final MemorySegment mr;
    /** Read from the region once: after its close (or the conduit's) the region is freed memory. */
    private final long key;
    private final Consumer<OfiRegistration> onClose;
    private boolean closed;

    OfiRegistration(MemorySegment memory, MemorySegment mr, Consumer<OfiRegistration> onClose) {
        this.memory = memory;
        this.mr = mr;
        this.key = FiDomain.key(mr);
        this.onClose = onClose;
    }

    @Override
    public MemorySegment memory() {
        return memory;
    }

    MemorySegment mr() {
        return mr;
    }

    MemorySegment descriptor() {
        return FiDomain.descriptor(mr);
    }

    boolean contains(long address, long nbytes) {
        return address >= memory.address() && address + nbytes <= memory.address() + memory.byteSize();
    }

    @Override
    public byte[] remoteKey() {
        return ByteBuffer.allocate(Long.BYTES).putLong(key).array();
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            onClose.accept(this);
        }
    }
}
