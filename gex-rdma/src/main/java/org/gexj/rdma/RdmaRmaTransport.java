package org.gexj.rdma;

import org.gexj.spi.RegisteredRmaTransport;

import java.lang.foreign.MemorySegment;

/** The engine's native RMA: RDMA write, read and write with data (see {@link RdmaRmaEngine}). */
final class RdmaRmaTransport implements RegisteredRmaTransport {
    private final RdmaRmaEngine engine;

    RdmaRmaTransport(RdmaRmaEngine engine) {
        this.engine = engine;
    }

    @Override
    public int put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, long operation) {
        return engine.start(RdmaOperations.PUT, peer, remoteOffset, src, srcOffset, nbytes, 0, operation, false);
    }

    /** Heap memory up to a bounce buffer, native memory up to {@link RdmaRmaEngine#COPY_MAX}. */
    @Override
    public boolean copiesSource(MemorySegment src, long nbytes) {
        return engine.copiesSource(src, nbytes);
    }

    @Override
    public int putCopying(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes,
                          long operation) {
        return engine.start(RdmaOperations.PUT, peer, remoteOffset, src, srcOffset, nbytes, 0, operation,
            engine.copiesSource(src, nbytes));
    }

    @Override
    public int get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, long operation) {
        return engine.start(RdmaOperations.GET, peer, remoteOffset, dst, dstOffset, nbytes, 0, operation, false);
    }

    @Override
    public int putWithImmediate(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes,
                                long immediate, long operation) {
        return engine.start(RdmaOperations.PUT_IMMEDIATE, peer, remoteOffset, src, srcOffset, nbytes, immediate,
            operation, false);
    }

    @Override
    public boolean atomicValid(int datatype, int op, boolean fetch) {
        return engine.atomics().valid(datatype, op, fetch);
    }

    @Override
    public boolean atomicsPreferred() {
        return engine.atomics().preferred();
    }

    @Override
    public int atomic(int peer, long remoteOffset, int datatype, int op, long operand, long compare,
                      MemorySegment result, long resultOffset, long operation) {
        return engine.startAtomic(peer, remoteOffset, datatype, op, operand, compare, result, resultOffset, operation);
    }

    @Override
    public int putRegistered(int peer, long address, long key, long offset, MemorySegment src, long srcOffset,
                             long nbytes, long operation) {
        return engine.startRegistered(RdmaOperations.PUT, peer, address, key, offset, src, srcOffset, nbytes, 0,
            operation);
    }

    @Override
    public int putRegisteredWithImmediate(int peer, long address, long key, long offset, MemorySegment src,
                                          long srcOffset, long nbytes, long immediate, long operation) {
        return engine.startRegistered(RdmaOperations.PUT_IMMEDIATE, peer, address, key, offset, src, srcOffset,
            nbytes, immediate, operation);
    }

    @Override
    public int getRegistered(MemorySegment dst, long dstOffset, int peer, long address, long key, long offset,
                             long nbytes, long operation) {
        return engine.startRegistered(RdmaOperations.GET, peer, address, key, offset, dst, dstOffset, nbytes, 0,
            operation);
    }
}
