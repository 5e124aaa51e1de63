package org.gexj.spi;

import java.lang.foreign.MemorySegment;

/**
 * The RMA part of a conduit that moves data itself ({@link Capabilities#nativeRma()}). Every call starts one
 * operation identified by the caller's {@code operation} id and returns at once: {@link Conduit#OK}, or
 * {@link Conduit#BACK_PRESSURED} with nothing started. The operation's completion is reported during a later
 * {@link Conduit#poll} through {@link ConduitListener#onRmaCompletion}: for a put, the data is at the target and the
 * source may be reused; for a get, the data is in the destination. Remote offsets are into the peer's bound segment
 * and are checked by the caller. Any thread may call; no call allocates.
 */
public interface RmaTransport {
    int put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, long operation);

    int get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, long operation);

    /**
     * A put whose arrival the target sees: once the data is in place there, the target's poll reports
     * {@link ConduitListener#onRemoteWrite} with this rank and {@code immediate} (its low
     * {@link Capabilities#immediateBits()} bits).
     */
    int putWithImmediate(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, long immediate,
                         long operation);
}
