package org.gexj.spi;

import org.agrona.concurrent.AtomicBuffer;

import java.lang.foreign.MemorySegment;

/**
 * A transport between the ranks of a job: it moves AM frames on two channels (requests and replies, so a
 * request handler blocked on a full reply path can still make progress by draining replies), binds one
 * segment per rank, and offers a split-phase barrier.
 *
 * <p>Sending is claim / write / commit, so frames are written in place without a copy or an allocation:
 * <pre>
 *   int at = conduit.claim(target, REQUEST, length);   // &lt; 0: BACK_PRESSURED
 *   AtomicBuffer b = conduit.claimBuffer(target, REQUEST);
 *   ... write the frame at [at, at + length) ...
 *   conduit.commit(target, REQUEST, at);               // or abort(...)
 * </pre>
 * Claims may be made from any thread; {@link #poll} is called by one thread at a time.
 */
public interface Conduit extends AutoCloseable {
    int REQUEST = 0;
    int REPLY = 1;
    /** Poll both channels. */
    int ALL_CHANNELS = 3;

    /** Returned by {@link #claim} when the path to the target is full; nothing was claimed. */
    int BACK_PRESSURED = -2;

    Capabilities capabilities();

    /**
     * @return offset of the claimed region in {@link #claimBuffer}, or {@link #BACK_PRESSURED}
     * @throws IllegalArgumentException if length exceeds {@link Capabilities#maxFrameLength()}
     */
    int claim(int target, int channel, int length);

    /** The buffer that the last successful {@link #claim} for this target and channel refers to. */
    AtomicBuffer claimBuffer(int target, int channel);

    void commit(int target, int channel, int offset);

    void abort(int target, int channel, int offset);

    /**
     * Delivers up to {@code limit} inbound frames of the channels in {@code channelMask} (bit 1 &lt;&lt; channel).
     *
     * @return number of frames delivered
     */
    int poll(FrameHandler handler, int channelMask, int limit);

    /**
     * Collective: allocates and binds this rank's segment of {@code size} bytes (a page multiple) and makes
     * the peers' segments reachable as far as the conduit can.
     */
    MemorySegment attachSegment(long size);

    /** The peer's segment mapped into this process, or {@code null} if the conduit does not cross-map. */
    MemorySegment peerSegment(int rank);

    /** Starts a barrier phase; every rank calls it once per phase. */
    void barrierNotify();

    /** @return true when every rank has notified the current phase. */
    boolean barrierTry();

    /** Releases every resource; no call may follow. */
    @Override
    void close();
}
