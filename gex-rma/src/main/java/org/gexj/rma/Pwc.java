package org.gexj.rma;

import org.gexj.BufferDescriptor;
import org.gexj.Client;
import org.gexj.am.Am;
import org.gexj.internal.CoreAccess;

import java.lang.foreign.MemorySegment;

/**
 * Put and get with completion (Photon's PWC and GWC): one-sided RMA whose completions are probed rather than handled.
 * Each operation carries a local identifier, returned to the initiator by {@link #probeLocal}, and a remote one with
 * up to {@link #MAX_COMPLETION_DATA} bytes of completion data, returned to the target by {@link #probeRemote}. A
 * runtime acts on them directly (HPX-5's parcels, Charm++'s zero-copy callbacks): no AM handler is written or run for
 * them.
 *
 * <ul>
 *   <li>{@code putWithCompletion} writes {@code nbytes} into the target's registered memory (a {@link BufferDescriptor}
 *   and an offset) or its segment (a rank and an offset). The target's remote completion appears once the data is
 *   visible in its memory; the initiator's local completion once the data is at the target, so the source may be
 *   reused (it may be reused when the call returns, too: the payload is copied before return).
 *   <li>{@code getWithCompletion} reads from the target into {@code dst}. The initiator's local completion appears
 *   once the data is in {@code dst}; the target (the producer) gets the remote completion once its memory has been
 *   read, so it learns it may reuse it.
 *   <li>{@link #NO_LCE} and {@link #NO_RCE} suppress the local or the remote completion ({@code PWC_REQ_NO_LCE},
 *   {@code PWC_REQ_NO_RCE}). A failed operation always produces its local completion, which throws when probed.
 *   <li>A zero-byte operation moves no data and touches no memory: it carries only its completions (the target's
 *   range is still checked at the call).
 * </ul>
 *
 * <p>Checks at the call, before anything is sent: the rank, the range against the descriptor or the peer's segment,
 * the local buffer, the completion data's size and the flags; each failure throws {@link IllegalArgumentException}
 * (or {@link NullPointerException} for a null buffer with bytes to move) naming the value and its range. The target
 * checks the registration again and refuses one closed since, a range outside it or a read-only one for a put: the
 * operation writes nothing and delivers no remote completion, and its local completion throws a
 * {@link org.gexj.GexException} naming the rank, the range and why.
 *
 * <p>Probing is a poll: {@link #probeLocal} and {@link #probeRemote} take a waiting completion, or poll the network
 * once and look again, and never block; {@link #awaitLocal} and {@link #awaitRemote} block until one comes. Neither may
 * run inside a handler. Completions come out in the order they completed; each exactly once, at one probe.
 *
 * <p>Resources, all bounded: an operation holds one of {@code GEX_PWC_OPS} slots (256) until its local completion is
 * probed (or, with {@link #NO_LCE}, until it completes); one with a remote completion takes one of
 * {@code GEX_PWC_CREDITS} (256) credits toward its target, which come back as the target probes. When either runs
 * out, the call polls until one frees, and throws {@link org.gexj.GexTimeoutException} after
 * {@code GEX_BACKPRESSURE_TIMEOUT} (60 s) naming what was not probed.
 *
 * <p>Today these travel as active messages on every conduit: a put that fits one AM Medium beside its completion data
 * is one message (packed); a larger one is a header and chunks that the target matches in any order. Nothing is
 * allocated per operation or probe.
 */
public final class Pwc {
    private static final CoreAccess CORE = CoreAccess.get();

    /** Produce no local completion ({@code PWC_REQ_NO_LCE}). */
    public static final int NO_LCE = 1;
    /** Produce no remote completion ({@code PWC_REQ_NO_RCE}): a plain one-sided put or get. */
    public static final int NO_RCE = 2;
    /** Most bytes of remote completion data per operation, beside its 8-byte identifier. */
    public static final int MAX_COMPLETION_DATA = 64;

    private final Client client;
    private final PwcEngine engine;

    private Pwc(Client client) {
        this.client = client;
        final Rma rma = Rma.of(client);
        // the data goes by the conduit's RDMA where the RMA layer's does (ofi, ibv), unless GEX_PWC_RDMA=0
        final boolean rdma = !rma.copiesDirectly() && !rma.overActiveMessages()
            && client.config().getBoolean("GEX_PWC_RDMA", true);
        this.engine = new PwcEngine(Am.of(client), rma.copiesDirectly() ? rma : null,
            rdma ? CORE.conduit(client).rma() : null);
    }

    /** The client's put and get with completion, which {@code Gex.init} created on every rank. */
    public static Pwc of(Client client) {
        return CORE.extension(client, Pwc.class, Pwc::new);
    }

    // ---------------------------------------------------------------------------------------------- put

    /** Puts {@code nbytes} of {@code src} into the registration {@code dst} describes, with completions. */
    public void putWithCompletion(BufferDescriptor dst, long dstOffset, MemorySegment src, long srcOffset,
                                  long nbytes, long localId, long remoteId, int flags) {
        putWithCompletion(dst, dstOffset, src, srcOffset, nbytes, localId, remoteId, null, flags);
    }

    /**
     * Puts {@code nbytes} of {@code src} into the registration {@code dst} describes, with completions.
     *
     * @param remoteData completion data for the target, all of it (at most {@link #MAX_COMPLETION_DATA} bytes), or
     *                   null for none
     * @param flags      0, or {@link #NO_LCE} and {@link #NO_RCE} or-ed
     */
    public void putWithCompletion(BufferDescriptor dst, long dstOffset, MemorySegment src, long srcOffset,
                                  long nbytes, long localId, long remoteId, MemorySegment remoteData, int flags) {
        checkCall("a put with completion", remoteData, flags);
        Rma.checkDescriptor(client, "dst", dst, dstOffset, nbytes);
        Rma.checkLocal("src", "source", src, srcOffset, nbytes);
        engine.put(dst.rank(), dst.handle(), dstOffset, src, srcOffset, nbytes, localId, remoteId, remoteData, 0,
            dataLength(remoteData), flags, dst);
    }

    /** Puts {@code nbytes} of {@code src} into {@code peer}'s segment at {@code remoteOffset}, with completions. */
    public void putWithCompletion(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes,
                                  long localId, long remoteId, int flags) {
        putWithCompletion(peer, remoteOffset, src, srcOffset, nbytes, localId, remoteId, null, flags);
    }

    /** As {@link #putWithCompletion(int, long, MemorySegment, long, long, long, long, int)}, with completion data. */
    public void putWithCompletion(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes,
                                  long localId, long remoteId, MemorySegment remoteData, int flags) {
        checkCall("a put with completion", remoteData, flags);
        client.segment().checkRemote(peer, remoteOffset, nbytes);
        Rma.checkLocal("src", "source", src, srcOffset, nbytes);
        engine.put(peer, AmRmaEngine.SEGMENT, remoteOffset, src, srcOffset, nbytes, localId, remoteId, remoteData, 0,
            dataLength(remoteData), flags, null);
    }

    // ---------------------------------------------------------------------------------------------- get

    /** Gets {@code nbytes} from the registration {@code src} describes into {@code dst}, with completions. */
    public void getWithCompletion(MemorySegment dst, long dstOffset, BufferDescriptor src, long srcOffset,
                                  long nbytes, long localId, long remoteId, int flags) {
        getWithCompletion(dst, dstOffset, src, srcOffset, nbytes, localId, remoteId, null, flags);
    }

    /**
     * Gets {@code nbytes} from the registration {@code src} describes into {@code dst}, with completions; the
     * producer's remote completion carries {@code remoteData}.
     *
     * @param dst writable and reachable from every thread, as for {@link Rma#get}
     */
    public void getWithCompletion(MemorySegment dst, long dstOffset, BufferDescriptor src, long srcOffset,
                                  long nbytes, long localId, long remoteId, MemorySegment remoteData, int flags) {
        checkCall("a get with completion", remoteData, flags);
        Rma.checkDescriptor(client, "src", src, srcOffset, nbytes);
        Rma.checkDestination(dst, dstOffset, nbytes);
        engine.get(dst, dstOffset, src.rank(), src.handle(), srcOffset, nbytes, localId, remoteId, remoteData, 0,
            dataLength(remoteData), flags, src);
    }

    /** Gets {@code nbytes} from {@code peer}'s segment at {@code remoteOffset} into {@code dst}, with completions. */
    public void getWithCompletion(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes,
                                  long localId, long remoteId, int flags) {
        getWithCompletion(dst, dstOffset, peer, remoteOffset, nbytes, localId, remoteId, null, flags);
    }

    /** As {@link #getWithCompletion(MemorySegment, long, int, long, long, long, long, int)}, with completion data. */
    public void getWithCompletion(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes,
                                  long localId, long remoteId, MemorySegment remoteData, int flags) {
        checkCall("a get with completion", remoteData, flags);
        client.segment().checkRemote(peer, remoteOffset, nbytes);
        Rma.checkDestination(dst, dstOffset, nbytes);
        engine.get(dst, dstOffset, peer, AmRmaEngine.SEGMENT, remoteOffset, nbytes, localId, remoteId, remoteData, 0,
            dataLength(remoteData), flags, null);
    }

    // ---------------------------------------------------------------------------------------------- probes

    /**
     * Takes the oldest local completion into {@code into}, polling the network once if there is none yet.
     *
     * @return false if there was none
     * @throws org.gexj.GexException if that operation failed (the target refused it, or a send failed): the completion
     *                               is consumed, and the message names its local id, the rank, the range and why
     */
    public boolean probeLocal(Completion into) {
        checkProbe(into);
        return engine.probeLocal(into);
    }

    /**
     * Takes the oldest remote completion into {@code into}, polling the network once if there is none yet. Probing
     * returns the initiator's credit.
     *
     * @return false if there was none
     */
    public boolean probeRemote(Completion into) {
        checkProbe(into);
        return engine.probeRemote(into);
    }

    /** Blocks, polling, until a local completion comes; then as {@link #probeLocal}. */
    public void awaitLocal(Completion into) {
        checkProbe(into);
        engine.awaitLocal(into);
    }

    /** Blocks, polling, until a remote completion comes; then as {@link #probeRemote}. */
    public void awaitRemote(Completion into) {
        checkProbe(into);
        engine.awaitRemote(into);
    }

    /** Remote completions waiting to be probed on this rank. */
    public int remoteCompletionsWaiting() {
        return engine.remoteWaiting();
    }

    /**
     * Chunks of operations to this rank that arrived before their header, since init: how often the target matched an
     * operation's messages out of order (a conduit that reorders, such as emu, or a lossy network's retransmissions).
     */
    public long outOfOrderChunks() {
        return engine.earlyChunks();
    }

    // ---------------------------------------------------------------------------------------------- checks

    private void checkCall(String operation, MemorySegment remoteData, int flags) {
        CORE.checkOpenAndNotRestricted(client, operation);
        if ((flags & ~(NO_LCE | NO_RCE)) != 0) {
            throw new IllegalArgumentException("flags 0x" + Integer.toHexString(flags)
                + " outside NO_LCE | NO_RCE (0x0..0x3)");
        }
        if (remoteData != null && remoteData.byteSize() > MAX_COMPLETION_DATA) {
            throw new IllegalArgumentException("remote completion data of " + remoteData.byteSize()
                + " bytes outside [0, " + MAX_COMPLETION_DATA + "]");
        }
    }

    private void checkProbe(Completion into) {
        CORE.checkOpenAndNotRestricted(client, "a completion probe");
        if (into == null) {
            throw new NullPointerException("into (the Completion to fill) is null");
        }
    }

    private static int dataLength(MemorySegment remoteData) {
        return remoteData == null ? 0 : (int) remoteData.byteSize();
    }
}
