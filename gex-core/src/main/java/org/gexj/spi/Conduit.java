package org.gexj.spi;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * A transport between the ranks of a job: it moves AM frames on two channels (requests and replies, so a request
 * handler blocked on a full reply path can still make progress by draining replies), binds one segment per rank,
 * optionally moves RMA data itself ({@link #rma()}) and optionally has its own barrier. What it can do is declared in
 * {@link #capabilities()}.
 *
 * <p>Sending is claim / write / commit, so frames are written in place without a copy or an allocation:
 * <pre>
 *   if (conduit.claim(claim, target, REQUEST, length) == OK) {   // else NO_ROOM: nothing claimed
 *       ... write the frame into claim.buffer() at [claim.offset(), claim.offset() + length) ...
 *       conduit.commit(claim);                                    // or abort(claim)
 *   }
 * </pre>
 *
 * <p>Threads: every conduit lets {@link #claim}, {@link #commit}, {@link #abort} and the RMA calls be made from any
 * threads at once, each with its own {@link Claim} (the layers above take no lock around them); {@link #poll} is
 * called by one thread at a time; {@link #attachSegment}, the barrier and {@link #close} by one thread, never racing
 * the others.
 *
 * <p><b>Memory ordering</b>, which the layers rely on and every conduit must keep: an initiating call (a
 * {@link #commit}, an {@link RmaTransport} call) <i>happens-before</i> the {@link #poll}, on whatever thread, that
 * reports its delivery here or its completion ({@link ConduitListener#onFrame} of a frame sent to this rank,
 * {@link ConduitListener#onRemoteWrite}, {@link ConduitListener#onRmaCompletion}). So what the initiating thread
 * wrote before the call (the frame, a put's source, the layer's bookkeeping for the operation id) is visible to the
 * listener. Conduits keep it with a release/acquire pair or a lock of their own. Where the report comes through
 * another rank (a reply to a request; a remote write's frame) the chain runs through that rank's poll and
 * initiating call, and what crosses processes is ordered by the transport itself; a layer that shares fields
 * between its senders and its poller beyond what the call carries publishes them with release/acquire access itself
 * rather than count on a conduit's lock. A completion may be reported by another thread's poll <b>before the
 * initiating call returns</b>: a layer records everything about an operation before it calls the transport.
 */
public interface Conduit extends AutoCloseable {
    int REQUEST = 0;
    int REPLY = 1;
    /** Poll both channels. */
    int ALL_CHANNELS = 3;

    /** Done, or started. */
    int OK = 0;
    /**
     * The path to the target is full; nothing was claimed or started. The layer above polls and retries, or reports
     * its own status to the client (the AM layer's {@code Am.BACK_PRESSURED}, a different value of the public API).
     */
    int NO_ROOM = -2;

    Capabilities capabilities();

    /**
     * Claims room for a frame of {@code length} bytes to {@code target} on {@code channel}, filling {@code claim}.
     *
     * @return {@link #OK}, or {@link #NO_ROOM} (nothing claimed)
     * @throws IllegalArgumentException if length exceeds {@link Capabilities#maxFrameLength()}, or target or channel
     *                                  is out of range
     */
    int claim(Claim claim, int target, int channel, int length);

    /** Sends the frame written in a successful claim. */
    void commit(Claim claim);

    /** Gives back a successful claim; nothing is sent. */
    void abort(Claim claim);

    /**
     * Delivers up to {@code limit} of what has arrived for the channels in {@code channelMask} (bit 1 &lt;&lt;
     * channel): for {@link #REQUEST}, request frames and remote writes landing here; for {@link #REPLY}, reply frames
     * and completions of this rank's RMA operations. A handler waiting for room polls replies alone, which therefore
     * also brings the completions it may be waiting for, and never starts another request's handler.
     *
     * @return number of frames and events delivered
     */
    int poll(ConduitListener listener, int channelMask, int limit);

    /**
     * A hint that {@link #poll} might deliver something for the channels in {@code channelMask}: false only when a poll
     * now would certainly deliver nothing. Called from any thread, without the poller's exclusion, so that an idle
     * poll loop reads a few words instead of taking the poll lock. The default, true, always polls.
     */
    default boolean mayDeliver(int channelMask) {
        return true;
    }

    /**
     * Called by a thread that has found nothing to do for a while, in place of a park: blocks for up to {@code nanos}
     * (from any thread, without the poller's exclusion), and may return early when a poll has something to do. A
     * conduit whose peers need this rank's calls to make progress (one-sided reads and writes served by software at
     * the target, as libfabric's {@code tcp;ofi_rxm} does) waits on its provider's wait object, so that a peer's get
     * is served one wake-up later rather than at the end of the park. The default parks.
     *
     * @return true if it returned because a poll has something to do: the caller polls at once and starts its back-off
     *         again
     */
    default boolean awaitActivity(long nanos) {
        LockSupport.parkNanos(nanos);
        return false;
    }

    /**
     * Whether a waiting thread should yield the core between its polls before it parks ({@code GEX_WAIT_YIELDS}'s
     * default: 20000 yields if true, none if false; a value given wins). The default, true. A conduit whose poll enters
     * the kernel anyway and whose {@link #awaitActivity} wakes at a peer's next packet returns false: there a yield
     * only doubles the system calls of each empty poll, and a rank serving a peer's RMA in software (which completes
     * nothing at this rank, so its polls find nothing and its back-off never starts again) spent most of a flood in
     * them.
     */
    default boolean yieldsWhileWaiting() {
        return true;
    }

    /**
     * Collective: allocates and binds this rank's segment of {@code size} bytes (a page multiple), makes the peers'
     * segments reachable as far as the conduit can, and returns this rank's memory with every rank's descriptor, from
     * one exchange.
     */
    AttachedSegments attachSegment(long size);

    /**
     * The peer's segment mapped into this process; only with {@link Capabilities#crossMapped()}, after
     * {@link #attachSegment}. The default, for conduits that do not cross-map, throws.
     *
     * @throws UnsupportedOperationException naming the conduit and the capability it lacks
     */
    default MemorySegment peerSegment(int rank) {
        throw new UnsupportedOperationException(capabilities().conduit() + " does not map peers' segments into this"
            + " process (Capabilities.crossMapped() is false): reach rank " + rank + "'s segment through rma() or AM");
    }

    /**
     * Zero-copy access to peers' registered memory, or {@code null} (the default) where registered memory is reached
     * by messages only. Called once, after the conduit opened.
     */
    default RegisteredAccess registeredAccess() {
        return null;
    }

    /** The conduit's RMA transport, or {@code null} without {@link Capabilities#nativeRma()}. */
    default RmaTransport rma() {
        return null;
    }

    /**
     * Starts a barrier phase; every rank calls it once per phase. Only with {@link Capabilities#conduitBarrier()}:
     * other conduits get the core's barrier over AM frames.
     */
    default void barrierNotify() {
        throw new IllegalStateException(capabilities().conduit() + " declares no barrier of its own"
            + " (Capabilities.conduitBarrier() is false): the core's barrier runs instead");
    }

    /** @return true when every rank has notified the current phase */
    default boolean barrierTry() {
        throw new IllegalStateException(capabilities().conduit() + " declares no barrier of its own"
            + " (Capabilities.conduitBarrier() is false): the core's barrier runs instead");
    }

    /**
     * What the conduit counted (datagrams, retransmissions, drops by cause...), by name in a fixed order; readable
     * after {@link #close}, for the statistics printed at exit. The default has none.
     */
    default java.util.Map<String, Long> counters() {
        return java.util.Map.of();
    }

    /** Releases every resource; no call may follow, except {@link #counters()}. */
    @Override
    void close();
}
