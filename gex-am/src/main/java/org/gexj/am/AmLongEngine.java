package org.gexj.am;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.Flags;
import org.gexj.GexException;
import org.gexj.GexTimeoutException;
import org.gexj.Lc;
import org.gexj.am.longam.ReassemblyTable;
import org.gexj.am.wire.AmFrameFlyweight;
import org.gexj.am.wire.LongTagCodec;
import org.gexj.internal.CoreAccess;
import org.gexj.internal.OperationSlots;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.RmaTransport;

import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * AM Long on conduits that move data themselves but do not cross-map segments. Per message, from the capabilities,
 * {@code GEX_AMLONG_PROTOCOL} and {@code GEX_AMLONG_PACKED_MAX}:
 * <ul>
 *   <li><b>packed</b>: payloads up to the packed maximum travel inside the envelope frame;</li>
 *   <li><b>put-sync-send</b>: the payload is put into the target's segment, the sender waits for the put's completion,
 *       then sends the envelope;</li>
 *   <li><b>target-side reassembly</b> (Hargrove and Bonachea, 2019): the payload goes as a put-with-immediate whose
 *       immediate tag carries (direction, credit slot, source) and the envelope follows at once, without waiting. The
 *       target matches the two arrivals, in either order, in a {@link ReassemblyTable}, and runs the handler at the
 *       second: once, after the payload is in place.</li>
 * </ul>
 * The nonce of reassembly is a request credit slot with a generation ({@link AmLongNonces}): the reply that answers
 * a request carries its slot back, and an arrival that repeats an earlier message's is counted and dropped. A Long
 * reply is reassembled under the nonce of the request it answers; a reply to a request that holds no slot
 * is sent put-sync-send.
 *
 * <p>Local completion: a reassembled payload is read by the conduit after the call, so {@link Lc#NOW} waits for the
 * put's completion, once the envelope is committed ({@link #afterCommit}: waiting before would cost the put's round
 * trip, as put-sync-send does), {@link Lc#GROUP} is counted in the thread's NBI AM event, and an event option gets an
 * event that completes with the put. Threads: sends from any thread; {@link #onEnvelope}, {@link #onRemoteWrite} and
 * {@link #onRmaCompletion} from the polling thread.
 */
final class AmLongEngine implements ConduitListener {
    private static final CoreAccess CORE = CoreAccess.get();
    private static final long OWNER = (long) CoreAccess.OWNER_AM << CoreAccess.OWNER_SHIFT;
    /** Envelopes are header plus args; a Long's payload never travels in a reassembled envelope. */
    private static final int MAX_ENVELOPE = AmFrameFlyweight.frameLength(AmFrameFlyweight.CATEGORY_LONG,
        AmFrameFlyweight.MAX_ARGS, 0);
    enum Protocol {
        PACKED, PUT_SYNC_SEND, REASSEMBLY;

        String setting() {
            return name().toLowerCase(Locale.ROOT).replace("_", "");
        }
    }

    private final AmClaims claims;
    private final Client client;
    private final Conduit conduit;
    private final RmaTransport transport;
    private final int rank;
    private final int size;
    private final long timeoutNs;
    /** What a payload above {@link #packedMax} uses. */
    private final Protocol large;
    private final long packedMax;
    private final LongTagCodec codec;
    private final ReassemblyTable table;
    private final AmLongNonces nonces;
    /** The (peer, slot) a payload operation holds, or -1. */
    private final int[] opCredit;
    /** Where the polling thread copies a completed stored envelope: the table may reuse its slab during the handler. */
    private final UnsafeBuffer[] ready =
        {new UnsafeBuffer(new byte[MAX_ENVELOPE]), new UnsafeBuffer(new byte[MAX_ENVELOPE])};
    private final int[] readyLength = new int[2];
    private final ThreadLocal<Event> localWait;
    /**
     * Each thread's envelope claims, one per channel: a request held while its payload goes may see a handler on the
     * same thread reply meanwhile, never another request.
     */
    private final ThreadLocal<Claim[]> envelopes =
        ThreadLocal.withInitial(() -> new Claim[] {new Claim(), new Claim()});
    /** Per thread and channel: the local event an {@link Lc#NOW} reassembled send awaits after its commit, or null. */
    private final ThreadLocal<Event[]> awaitAfterCommit = ThreadLocal.withInitial(() -> new Event[2]);
    private final Event[] opEvents;
    private final OperationSlots ops;
    private long badTags;
    /** Bad payload tags reported on stderr; later ones are only counted ({@link #badTags}). */
    private static final int REPORTED_BAD_TAGS = 3;

    AmLongEngine(AmClaims claims, Client client, Conduit conduit, Capabilities capabilities, long frameLimit,
                 long timeoutNs) {
        this.claims = claims;
        this.client = client;
        this.conduit = conduit;
        this.transport = capabilities.nativeRma() ? conduit.rma() : null;
        this.rank = client.rank();
        this.size = client.size();
        this.timeoutNs = timeoutNs;
        final String setting = client.config().get("GEX_AMLONG_PROTOCOL", "auto").toLowerCase(Locale.ROOT);
        final Protocol chosen = switch (setting) {
            case "auto" -> capabilities.immediateBits() > 0 ? Protocol.REASSEMBLY
                : transport != null ? Protocol.PUT_SYNC_SEND : Protocol.PACKED;
            case "packed" -> Protocol.PACKED;
            case "putsyncsend" -> Protocol.PUT_SYNC_SEND;
            case "reassembly" -> Protocol.REASSEMBLY;
            default -> throw new IllegalArgumentException("GEX_AMLONG_PROTOCOL=" + setting
                + " is not one of auto, packed, putsyncsend, reassembly");
        };
        if (chosen != Protocol.PACKED && transport == null) {
            throw new IllegalArgumentException("GEX_AMLONG_PROTOCOL=" + setting + " needs native RMA, which "
                + capabilities.conduit() + " does not have");
        }
        if (chosen == Protocol.REASSEMBLY && capabilities.immediateBits() == 0) {
            throw new IllegalArgumentException("GEX_AMLONG_PROTOCOL=reassembly needs remote writes with immediate data,"
                + " which " + capabilities.conduit() + " does not carry");
        }
        this.large = chosen;
        final long packedLimit = Math.min(frameLimit, capabilities.maxPackedLong());
        this.packedMax = client.config().getLong("GEX_AMLONG_PACKED_MAX",
            chosen == Protocol.PACKED ? packedLimit : Math.min(packedLimit, capabilities.packedLongDefault()), 0,
            packedLimit);
        if (chosen == Protocol.REASSEMBLY) {
            this.codec = new LongTagCodec(capabilities.immediateBits(), AmLongNonces.nonceBits());
            codec.checkJobSize(size);
            this.nonces = new AmLongNonces(size);
            this.table = new ReassemblyTable(64, MAX_ENVELOPE);
        } else {
            this.codec = null;
            this.nonces = null;
            this.table = null;
        }
        final int count = client.config().getInt("GEX_AMLONG_OPS", 1024, 1, 1 << 20);
        this.opEvents = new Event[count];
        this.opCredit = new int[count];
        this.ops = new OperationSlots(client, count, timeoutNs, "AM Long payload operations (GEX_AMLONG_OPS)");
        this.localWait = ThreadLocal.withInitial(() -> CORE.newEvent(client));
        if (transport != null) {
            CORE.setRmaSink(client, CoreAccess.OWNER_AM, this);
        }
    }

    /** The largest Long a peer may be sent: the packed limit, unless payloads can also travel apart. */
    long maxLong(long conduitMax) {
        return large == Protocol.PACKED ? packedMax : conduitMax;
    }

    /** True if Long payloads may come by target-side reassembly here. */
    boolean reassembles() {
        return table != null;
    }

    int creditsInFlight(int peer) {
        return nonces == null ? 0 : nonces.inFlight(peer);
    }

    long packedMax() {
        return packedMax;
    }

    /** True if a payload of {@code nbytes} travels apart from its envelope. */
    boolean apart(long nbytes) {
        return nbytes > packedMax && large != Protocol.PACKED;
    }

    Protocol protocolFor(long nbytes) {
        return nbytes <= packedMax ? Protocol.PACKED : large;
    }

    /** Frames dropped by the table (duplicate or malformed envelopes), and remote-write tags that were not ours. */
    long dropped() {
        return badTags + (table == null ? 0 : table.duplicates() + table.malformed());
    }

    /** Live entries of the reassembly table: 0 once traffic stops. */
    int pendingReassemblies() {
        return table == null ? 0 : table.size();
    }

    // ------------------------------------------------------------------------------------------------ sending

    /**
     * Sends the payload apart and claims its envelope, written with the header: put-sync-send or reassembly. The caller
     * writes the args and commits the returned claim.
     *
     * @return the envelope's claim, or null if IMMEDIATE and a resource was short (nothing sent)
     */
    Claim beginApart(Token token, int peer, int channel, int handler, int nargs, int flags, MemorySegment src,
                     long srcOffset, long nbytes, long dest, Lc lc) {
        // not the caller's claim: this one is held while polling, where a handler on this thread may reply with its own
        final Claim claim = envelopes.get()[channel];
        final boolean request = channel == Conduit.REQUEST;
        final int slot;
        final int nonce;
        if (large == Protocol.REASSEMBLY && request) {
            slot = acquireCredit(peer, flags);
            if (slot < 0) {
                return null;
            }
            nonce = nonces.start(peer, slot);
        } else {
            slot = large == Protocol.REASSEMBLY && token != null ? token.creditSlot : -1;
            nonce = slot >= 0 ? token.nonce : 0;
        }
        final boolean reassemble = slot >= 0;
        final int credited = reassemble && request ? AmLongNonces.held(peer, slot) : -1;
        final int length = AmFrameFlyweight.frameLength(AmFrameFlyweight.CATEGORY_LONG, nargs, 0);
        final Claim claimed;
        try {
            claimed = claims.claimRoom(claim, peer, channel, length, flags);
        } catch (RuntimeException | Error e) {
            giveBack(credited); // the path stayed full: nothing was sent, the slot is free again
            throw e;
        }
        if (claimed == null) {
            giveBack(credited);
            return null;
        }
        final Event local = reassemble ? localEvent(lc) : localWait.get();
        final int op;
        try {
            op = acquireOp(local, credited);
        } catch (RuntimeException | Error e) {
            conduit.abort(claim);
            throw e;
        }
        final long start = System.nanoTime();
        int code;
        while ((code = startPayload(reassemble, request, peer, dest, src, srcOffset, nbytes, nonce, op, claim,
            credited)) == Conduit.NO_ROOM) {
            if ((flags & Flags.IMMEDIATE) != 0 || System.nanoTime() - start > timeoutNs) {
                abandon(op, claim, credited);
                if ((flags & Flags.IMMEDIATE) != 0) {
                    return null;
                }
                throw new GexTimeoutException("rank " + rank + ": the conduit would not take an AM Long payload to "
                    + "rank " + peer + " for " + timeoutNs / 1_000_000_000L + " s (GEX_BACKPRESSURE_TIMEOUT)");
            }
            try {
                CORE.progressWhileBlocked(client);
            } catch (RuntimeException | Error e) {
                abandon(op, claim, credited); // a handler threw while this send waited: it never started
                throw e;
            }
        }
        if (!reassemble) {
            try {
                awaitLocally(local); // put-sync-send: the envelope goes only once the payload is in place
            } catch (RuntimeException | Error e) {
                conduit.abort(claim); // the envelope never goes: no handler runs for a payload of unknown state
                throw e;
            }
        }
        AmFrameFlyweight.encodeHeader(claim.buffer(), claim.offset(),
            AmSender.frameType(AmFrameFlyweight.CATEGORY_LONG, channel, false)
                | (reassemble ? AmFrameFlyweight.TYPE_REASSEMBLY : 0), handler, nargs, rank, nbytes, dest);
        AmFrameFlyweight.encodeCredit(claim.buffer(), claim.offset(), request ? slot : AmSender.creditOf(token));
        AmFrameFlyweight.encodeNonce(claim.buffer(), claim.offset(), nonce);
        final boolean awaitLater = reassemble && (lc == null || lc == Lc.NOW);
        awaitAfterCommit.get()[channel] = awaitLater ? local : null;
        if (reassemble && !awaitLater) {
            try {
                completeLocally(lc, local);
            } catch (RuntimeException | Error e) {
                // the envelope never goes, so no reply will carry the slot back: drop the reply's hold
                conduit.abort(claim);
                if (credited >= 0) {
                    nonces.dropHold(credited);
                }
                throw e;
            }
        } else if (lc != null && lc.isEvent()) {
            CORE.setLastEvent(lc, Event.DONE);
        }
        return claim;
    }

    /**
     * The payload's put, through the transport. If the conduit throws, nothing started: the operation slot, its local
     * event, the envelope's claim and the credit are given back before the exception goes on to the caller.
     */
    private int startPayload(boolean reassemble, boolean request, int peer, long dest, MemorySegment src,
                             long srcOffset, long nbytes, int nonce, int op, Claim claim, int credited) {
        try {
            return reassemble
                ? transport.putWithImmediate(peer, dest, src, srcOffset, nbytes,
                    codec.encode(request ? LongTagCodec.DIRECTION_REQUEST : LongTagCodec.DIRECTION_REPLY, nonce, rank),
                    OWNER | op)
                : transport.put(peer, dest, src, srcOffset, nbytes, OWNER | op);
        } catch (RuntimeException e) {
            try {
                abandon(op, claim, credited);
            } catch (IllegalStateException closed) {
                e.addSuppressed(closed); // the conduit is closed: its claim is gone with it
            }
            throw CORE.closedOr(client, e);
        } catch (Error e) {
            abandon(op, claim, credited);
            throw e;
        }
    }

    /** A payload whose put never started: its slot, local event, envelope claim and credit are free again at once. */
    private void abandon(int op, Claim claim, int credited) {
        opCredit[op] = -1; // given back here, not by a completion
        releaseOp(op);
        conduit.abort(claim);
        giveBack(credited);
    }

    private int acquireCredit(int peer, int flags) {
        int slot = nonces.tryAcquire(peer);
        if (slot >= 0 || (flags & Flags.IMMEDIATE) != 0) {
            return slot;
        }
        CORE.resetBackoff(client);
        final long start = System.nanoTime();
        while ((slot = nonces.tryAcquire(peer)) < 0) {
            if (System.nanoTime() - start > timeoutNs) {
                throw new GexTimeoutException("rank " + rank + ": all " + AmLongNonces.SLOTS
                    + " AM Long credits to rank " + peer + " stayed in flight for " + timeoutNs / 1_000_000_000L
                    + " s (GEX_BACKPRESSURE_TIMEOUT); is rank " + peer + " polling?");
            }
            CORE.progressWhileBlocked(client);
        }
        return slot;
    }

    /** The event a reassembled payload's put completes: GROUP counts in the NBI AM event, an option gets its own. */
    private Event localEvent(Lc lc) {
        if (lc == Lc.GROUP) {
            return CORE.nbiEvent(client, Ec.AM);
        }
        return lc != null && lc.isEvent() ? CORE.pooledEvent(client) : localWait.get();
    }

    private void completeLocally(Lc lc, Event local) {
        if (lc != null && lc.isEvent()) {
            CORE.setLastEvent(lc, local);
        } else if (lc == null || lc == Lc.NOW) {
            awaitLocally(local);
        }
    }

    /**
     * Called by the sender once it has committed the claim {@link #beginApart} returned for {@code channel}: a
     * reassembled payload sent with {@link Lc#NOW} is awaited here, while its envelope travels beside it.
     */
    void afterCommit(int channel) {
        final Event[] pending = awaitAfterCommit.get();
        final Event local = pending[channel];
        if (local != null) {
            pending[channel] = null;
            awaitLocally(local);
        }
    }

    /** Polls (replies only inside a handler, which is where completions come) until the put is complete. */
    private void awaitLocally(Event local) {
        awaitPending(client, local, timeoutNs, "an AM Long payload's put did not complete");
    }

    /**
     * Polls (replies only inside a handler) until {@code local} has nothing pending.
     *
     * @throws GexTimeoutException saying "rank R: {@code what} in T s" after {@code timeoutNs}
     */
    static void awaitPending(Client client, Event local, long timeoutNs, String what) {
        CORE.resetBackoff(client);
        final long start = System.nanoTime();
        while (local.pending() != 0) {
            if (System.nanoTime() - start > timeoutNs) {
                throw new GexTimeoutException("rank " + client.rank() + ": " + what + " in "
                    + timeoutNs / 1_000_000_000L + " s (GEX_BACKPRESSURE_TIMEOUT)");
            }
            CORE.progressWhileBlocked(client);
        }
    }

    /** A slot taken for a message that was not sent after all ({@link AmLongNonces#giveBack}), if any. */
    private void giveBack(int credited) {
        if (credited >= 0) {
            nonces.giveBack(credited);
        }
    }

    private int acquireOp(Event local, int credited) {
        CORE.begin(local, 1);
        final int op;
        try {
            op = ops.acquire();
        } catch (RuntimeException e) {
            CORE.complete(local, 1);
            giveBack(credited);
            throw e;
        }
        // written before the transport call that can complete the operation
        opEvents[op] = local;
        opCredit[op] = credited;
        return op;
    }

    private void releaseOp(int op) {
        final Event local = opEvents[op];
        final int credited = opCredit[op];
        opEvents[op] = null;
        ops.release(op);
        CORE.complete(local, 1);
        if (credited >= 0) {
            nonces.dropHold(credited);
        }
    }

    @Override
    public void onFrame(int channel, DirectBuffer buffer, int offset, int length) {
        throw new IllegalStateException("RMA completions only");
    }

    /** A payload's put completed: its source is reusable. */
    @Override
    public void onRmaCompletion(long operation, int status) {
        final int op = (int) (operation & ~OWNER);
        if (op < 0 || op >= opEvents.length || opEvents[op] == null) {
            throw new GexException("rank " + rank + ": completion of AM Long payload operation " + op
                + ", which is not in flight");
        }
        if (status != Conduit.OK) {
            throw new GexException("rank " + rank + ": the conduit failed an AM Long payload put ("
                + RmaTransport.describe(status) + "); the target's handler will never run");
        }
        releaseOp(op);
    }

    // ------------------------------------------------------------------------------------------------ receiving

    /**
     * A reassembled envelope arrived.
     *
     * @return true if it is to be dispatched now (its payload is in place); false if stored, or dropped as a
     *         duplicate or malformed
     */
    boolean onEnvelope(int channel, AmFrameFlyweight frame) {
        final int direction =
            channel == Conduit.REQUEST ? LongTagCodec.DIRECTION_REQUEST : LongTagCodec.DIRECTION_REPLY;
        final int source = frame.source();
        final int nonce = frame.nonce();
        if (!AmLongNonces.wellFormed(nonce, frame.credit())) {
            badTags++;
            return false;
        }
        if (stale(source, direction, nonce)) {
            return false;
        }
        final int code = table.onEnvelope(source, direction, nonce, frame.buffer(), frame.offset(), frame.length());
        if (code == ReassemblyTable.COMPLETE) {
            nonces.matched(source, direction, nonce);
            return true;
        }
        return false;
    }

    /** An arrival that is not of the slot's current message ({@link AmLongNonces#current}), counted. */
    private boolean stale(int source, int direction, int nonce) {
        final boolean current = nonces.current(source, direction, nonce);
        if (!current) {
            badTags++;
        }
        return !current;
    }

    /**
     * A tagged payload landed.
     *
     * @return the channel whose completed envelope {@link #readyEnvelope} now holds, or -1 (stored, or dropped)
     */
    int payloadLanded(int reportedSource, long immediate) {
        if (table == null || !codec.isValid(immediate, size)
            || reportedSource != ConduitListener.SOURCE_UNKNOWN && codec.source(immediate) != reportedSource) {
            if (badTags++ < REPORTED_BAD_TAGS) {
                // a payload dropped here leaves its envelope waiting: say why, or the Long looks like a hang
                System.err.println("gex: rank " + rank + " dropped a tagged payload: immediate 0x"
                    + Long.toHexString(immediate) + (codec.isValid(immediate, size) ? " from rank "
                    + codec.source(immediate) : " (not a valid tag)") + ", reported by the conduit from "
                    + (reportedSource == ConduitListener.SOURCE_UNKNOWN ? "an unknown source"
                        : "rank " + reportedSource)
                    + (table == null ? ", no reassembly table" : ""));
            }
            return -1;
        }
        final int source = codec.source(immediate);
        final int direction = codec.direction(immediate);
        final int nonce = codec.slot(immediate);
        if (stale(source, direction, nonce)
            || table.onPayload(source, direction, nonce) != ReassemblyTable.COMPLETE) {
            return -1;
        }
        nonces.matched(source, direction, nonce);
        final int channel = direction == LongTagCodec.DIRECTION_REQUEST ? Conduit.REQUEST : Conduit.REPLY;
        ready[channel].putBytes(0, table.storedEnvelope(), 0, table.storedEnvelopeLength());
        readyLength[channel] = table.storedEnvelopeLength();
        return channel;
    }

    /** The envelope {@link #payloadLanded} completed on {@code channel}. */
    DirectBuffer readyEnvelope(int channel) {
        return ready[channel];
    }

    int readyLength(int channel) {
        return readyLength[channel];
    }

    /**
     * A reply that carried one of this rank's credit slots toward {@code peer} was handled: the reply no longer holds
     * the slot (the payload's put may still).
     *
     * @return false if this rank held no such slot (the reply is bad)
     */
    boolean retire(int peer, int slot) {
        return nonces != null && nonces.retire(peer, slot);
    }
}
