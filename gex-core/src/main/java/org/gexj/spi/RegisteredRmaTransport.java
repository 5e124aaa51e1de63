package org.gexj.spi;

import java.lang.foreign.MemorySegment;

/**
 * An {@link RmaTransport} that also reaches peers' registered memory by the NIC key its owner's
 * {@link RegisteredAccess#publish} gave: what a conduit whose {@code publish} returns keys hands out from
 * {@link Conduit#rma()}. Return codes and completions as {@link RmaTransport}'s.
 */
public interface RegisteredRmaTransport extends RmaTransport {
    /**
     * A put into {@code peer}'s registered memory that its conduit registered with the NIC for peers
     * ({@link RegisteredAccess#publish} gave {@code key}): {@code address} and {@code key} from the descriptor,
     * {@code offset} into the registration, already checked by the caller against the descriptor's length. The
     * owner's NIC refuses a registration closed since (its key is gone), a range outside it and a write into memory
     * registered read-only: the operation completes {@link RmaTransport#FAILED}, with nothing written. Completion as
     * for {@link RmaTransport#put}. Any thread may call.
     */
    int putRegistered(int peer, long address, long key, long offset, MemorySegment src, long srcOffset, long nbytes,
                      long operation);

    /**
     * As {@link #putRegistered}, and the target sees its arrival as {@link RmaTransport#putWithImmediate}'s does: once
     * the data is in place there, the target's poll reports {@link ConduitListener#onRemoteWrite} with this rank and
     * {@code immediate}. Only with {@link Capabilities#immediateBits()} non-zero. A refused put reports nothing at the
     * target.
     */
    int putRegisteredWithImmediate(int peer, long address, long key, long offset, MemorySegment src, long srcOffset,
                                   long nbytes, long immediate, long operation);

    /** A get from registered memory by key, as {@link #putRegistered}. */
    int getRegistered(MemorySegment dst, long dstOffset, int peer, long address, long key, long offset, long nbytes,
                      long operation);

}
