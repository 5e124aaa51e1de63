package org.gexj.testkit.emu;

import org.gexj.spi.RmaTransport;

import java.lang.foreign.MemorySegment;

/**
 * The native RMA of {@link EmuConduit}: each call queues one operation to its target, where it lands when the target
 * polls. Returns {@link org.gexj.spi.Conduit#OK}, or {@link org.gexj.spi.Conduit#NO_ROOM} with nothing started
 * when {@code GEX_EMU_CREDITS} operations to that peer are in flight or the peer has closed. A put's source and a
 * get's destination must stay valid, and readable or writable from the target's polling thread, until the operation's
 * completion. Ranges are checked at the call: a bad one is an {@link IllegalArgumentException}.
 */
final class EmuRmaTransport implements RmaTransport {
    private final EmuConduit conduit;

    EmuRmaTransport(EmuConduit conduit) {
        this.conduit = conduit;
    }

    @Override
    public int put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, long operation) {
        return conduit.startRma(EmuItem.PUT, peer, remoteOffset, src, srcOffset, nbytes, 0, operation);
    }

    @Override
    public int get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, long operation) {
        return conduit.startRma(EmuItem.GET, peer, remoteOffset, dst, dstOffset, nbytes, 0, operation);
    }

    /** Every libfabric operation on every datatype, as the target's poll applies it ({@link EmuAtomics}). */
    @Override
    public boolean atomicValid(int datatype, int op, boolean fetch) {
        return EmuAtomics.valid(datatype, op, fetch);
    }

    @Override
    public int atomic(int peer, long remoteOffset, int datatype, int op, long operand, long compare,
                      MemorySegment result, long resultOffset, long operation) {
        return conduit.startAtomic(peer, remoteOffset, datatype, op, operand, compare, result, resultOffset,
            operation);
    }

    @Override
    public int putWithImmediate(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes,
                                long immediate, long operation) {
        return conduit.startRma(EmuItem.PUT_IMMEDIATE, peer, remoteOffset, src, srcOffset, nbytes, immediate,
            operation);
    }
}
