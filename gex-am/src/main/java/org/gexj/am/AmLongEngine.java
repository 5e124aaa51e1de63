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
import org.gexj.am.longam.CreditSlots;
import org.gexj.am.longam.ReassemblyTable;
import org.gexj.am.wire.AmFrameFlyweight;
import org.gexj.am.wire.LongTagCodec;
import org.gexj.internal.CoreAccess;
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
 * The nonce of reassembly is a request credit slot ({@link CreditSlots}, as many per peer as the tag has room for):
 * a request takes one, and the reply that answers it, the handler's own or an implicit one the dispatcher sends when
 * the handler did not reply, carries the slot back; the requester frees it once that reply has been handled, so no
 * extra message retires a nonce and a (source, direction, slot) key is never reused in flight. A Long reply is
 * reassembled under the slot of the request it answers; a reply to a request that holds no slot is sent put-sync-send.
 *
 * <p>Local completion: a reassembled payload is read by the conduit after the call, so {@link Lc#NOW} waits for the
 * put's completion, {@link Lc#GROUP} is counted in the thread's NBI AM event, and an event option gets an event that
 * completes with the put. Threads: sends from any thread; {@link #onEnvelope}, {@link #onRemoteWrite} and
 * {@link #onRmaCompletion} from the polling thread.
 */
final class AmLongEngine implements ConduitListener {
    private static final CoreAccess CORE = CoreAccess.get();
    private static final long OWNER = (long) CoreAccess.OWNER_AM << CoreAccess.OWNER_SHIFT;
    /** Envelopes are header plus args; a Long's payload never travels in a reassembled envelope. */
    private static final int MAX_ENVELOPE = AmFrameFlyweight.frameLength(AmFrameFlyweight.MAX_ARGS, 0);

    enum Protocol {
        PACKED, PUT_SYNC_SEND, REASSEMBLY;

        String setting() {
            return name().toLowerCase(Locale.ROOT).replace("_", "");
        }
    }

    private final Am am;
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
    private final CreditSlots credits;
    private final ReassemblyTable table;
    /** Where the polling thread copies a completed stored envelope: the table may reuse its slab during the handler. */
    private final UnsafeBuffer[] ready = {new UnsafeBuffer(new byte[MAX_ENVELOPE]), new UnsafeBuffer(new byte[MAX_ENVELOPE])};
    private final int[] readyLength = new int[2];
    private final ThreadLocal<Event> localWait;
    private final Event[] opEvents;
    private final int[] free;
    private int freeCount;
    private long badTags;

    AmLongEngine(Am am, Client client, Conduit conduit, Capabilities capabilities, long frameLimit, long timeoutNs) {
        this.am = am;
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
            chosen == Protocol.PACKED ? packedLimit : Math.min(packedLimit, 4096), 0, packedLimit);
        if (chosen == Protocol.REASSEMBLY) {
            this.codec = new LongTagCodec(capabilities.immediateBits(), 6);
            codec.checkJobSize(size);
            this.credits = new CreditSlots(size, codec.slots());
            this.table = new ReassemblyTable(64, MAX_ENVELOPE);
        } else {
            this.codec = null;
            this.credits = null;
            this.table = null;
        }
        final int ops = client.config().getInt("GEX_AMLONG_OPS", 1024, 1, 1 << 20);
        this.opEvents = new Event[ops];
        this.free = new int[ops];
        for (int i = 0; i < ops; i++) {
            free[i] = ops - 1 - i;
        }
        this.freeCount = ops;
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

    long packedMax() {
        return packedMax;
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
     * writes the args and commits.
     *
     * @return {@code claim}, or null if IMMEDIATE and a resource was short (nothing sent)
     */
    Claim beginApart(Claim claim, Token token, int peer, int channel, int handler, int nargs, int flags,
                     MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc) {
        final boolean request = channel == Conduit.REQUEST;
        final int slot;
        if (large == Protocol.REASSEMBLY && request) {
            slot = acquireCredit(peer, flags);
            if (slot < 0) {
                return null;
            }
        } else {
            slot = large == Protocol.REASSEMBLY && token != null ? token.creditSlot : -1;
        }
        final boolean reassemble = slot >= 0;
        final int length = AmFrameFlyweight.frameLength(nargs, 0);
        if (am.claimRoom(claim, peer, channel, length, flags) == null) {
            if (reassemble && request) {
                credits.release(peer, slot);
            }
            return null;
        }
        final Event local = reassemble ? localEvent(lc) : localWait.get();
        final int op = acquireOp(local);
        final long opId = OWNER | op;
        final long start = System.nanoTime();
        int code;
        while ((code = reassemble
            ? transport.putWithImmediate(peer, dest, src, srcOffset, nbytes,
                codec.encode(request ? LongTagCodec.DIRECTION_REQUEST : LongTagCodec.DIRECTION_REPLY, slot, rank), opId)
            : transport.put(peer, dest, src, srcOffset, nbytes, opId)) == Conduit.BACK_PRESSURED) {
            if ((flags & Flags.IMMEDIATE) != 0 || System.nanoTime() - start > timeoutNs) {
                releaseOp(op);
                conduit.abort(claim);
                if (reassemble && request) {
                    credits.release(peer, slot);
                }
                if ((flags & Flags.IMMEDIATE) != 0) {
                    return null;
                }
                throw new GexTimeoutException("rank " + rank + ": the conduit would not take an AM Long payload to rank "
                    + peer + " for " + timeoutNs / 1_000_000_000L + " s (GEX_BACKPRESSURE_TIMEOUT)");
            }
            CORE.progressWhileBlocked(client);
        }
        if (!reassemble) {
            awaitLocally(local); // put-sync-send: the envelope goes only once the payload is in place
        }
        AmFrameFlyweight.encodeHeader(claim.buffer(), claim.offset(), Am.frameType(AmFrameFlyweight.CATEGORY_LONG, channel,
            false) | (reassemble ? AmFrameFlyweight.TYPE_REASSEMBLY : 0), handler, nargs, rank, nbytes, dest);
        AmFrameFlyweight.encodeCredit(claim.buffer(), claim.offset(), request ? slot : Am.creditOf(token));
        if (reassemble) {
            completeLocally(lc, local);
        } else if (lc != null && lc.isEvent()) {
            CORE.setLastEvent(lc, Event.DONE);
        }
        return claim;
    }

    private int acquireCredit(int peer, int flags) {
        int slot = credits.acquire(peer);
        if (slot >= 0 || (flags & Flags.IMMEDIATE) != 0) {
            return slot;
        }
        CORE.resetBackoff(client);
        final long start = System.nanoTime();
        while ((slot = credits.acquire(peer)) < 0) {
            if (System.nanoTime() - start > timeoutNs) {
                throw new GexTimeoutException("rank " + rank + ": all " + credits.slotsPerPeer()
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

    /** Polls (replies only inside a handler, which is where completions come) until the put is complete. */
    private void awaitLocally(Event local) {
        CORE.resetBackoff(client);
        final long start = System.nanoTime();
        while (local.pending() != 0) {
            if (System.nanoTime() - start > timeoutNs) {
                throw new GexTimeoutException("rank " + rank + ": an AM Long payload's put did not complete in "
                    + timeoutNs / 1_000_000_000L + " s (GEX_BACKPRESSURE_TIMEOUT)");
            }
            CORE.progressWhileBlocked(client);
        }
    }

    private int acquireOp(Event local) {
        CORE.begin(local, 1);
        final long start = System.nanoTime();
        while (true) {
            synchronized (this) {
                if (freeCount > 0) {
                    final int op = free[--freeCount];
                    opEvents[op] = local;
                    return op;
                }
            }
            if (System.nanoTime() - start > timeoutNs) {
                CORE.complete(local, 1);
                throw new GexTimeoutException("rank " + rank + ": all " + opEvents.length
                    + " AM Long payload operations (GEX_AMLONG_OPS) stayed busy for " + timeoutNs / 1_000_000_000L + " s");
            }
            CORE.progressWhileBlocked(client);
        }
    }

    private void releaseOp(int op) {
        final Event local;
        synchronized (this) {
            local = opEvents[op];
            opEvents[op] = null;
            free[freeCount++] = op;
        }
        CORE.complete(local, 1);
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
            throw new GexException("rank " + rank + ": the conduit failed an AM Long payload put (status " + status
                + "); the target's handler will never run");
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
        final int direction = channel == Conduit.REQUEST ? LongTagCodec.DIRECTION_REQUEST : LongTagCodec.DIRECTION_REPLY;
        final int code = table.onEnvelope(frame.source(), direction, frame.credit(), frame.buffer(), frame.offset(),
            frame.length());
        return code == ReassemblyTable.COMPLETE;
    }

    /**
     * A tagged payload landed.
     *
     * @return the channel whose completed envelope {@link #readyEnvelope} now holds, or -1 (stored, or dropped)
     */
    int payloadLanded(int source, long immediate) {
        if (table == null || !codec.isValid(immediate, size) || codec.source(immediate) != source) {
            badTags++;
            return -1;
        }
        final int direction = codec.direction(immediate);
        if (table.onPayload(source, direction, codec.slot(immediate)) != ReassemblyTable.COMPLETE) {
            return -1;
        }
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

    /** A reply that carried one of this rank's credit slots toward {@code peer} was handled: the slot is free. */
    boolean retire(int peer, int slot) {
        if (credits == null || slot >= credits.slotsPerPeer()) {
            return false;
        }
        try {
            credits.release(peer, slot);
            return true;
        } catch (IllegalStateException notInFlight) {
            return false;
        }
    }
}
