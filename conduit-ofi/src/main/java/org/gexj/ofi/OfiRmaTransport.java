package org.gexj.ofi;

import org.gexj.spi.RmaTransport;

import java.lang.foreign.MemorySegment;

/** The ofi conduit's native RMA: {@code fi_write}, {@code fi_read}, {@code fi_writedata} (see {@link OfiRmaEngine}). */
final class OfiRmaTransport implements RmaTransport {
    private final OfiRmaEngine engine;

    OfiRmaTransport(OfiRmaEngine engine) {
        this.engine = engine;
    }

    @Override
    public int put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, long operation) {
        return engine.start(OfiOperations.PUT, peer, remoteOffset, src, srcOffset, nbytes, 0, operation);
    }

    @Override
    public int get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, long operation) {
        return engine.start(OfiOperations.GET, peer, remoteOffset, dst, dstOffset, nbytes, 0, operation);
    }

    @Override
    public int putWithImmediate(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes,
                                long immediate, long operation) {
        return engine.start(OfiOperations.PUT_IMMEDIATE, peer, remoteOffset, src, srcOffset, nbytes, immediate,
            operation);
    }
}
