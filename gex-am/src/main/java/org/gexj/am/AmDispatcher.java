package org.gexj.am;

import org.agrona.DirectBuffer;
import org.gexj.Client;
import org.gexj.am.internal.RemoteWriteSink;
import org.gexj.am.wire.AmFrameFlyweight;
import org.gexj.internal.CoreAccess;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.RegisteredAccess;

import java.lang.foreign.MemorySegment;

/**
 * Runs the handler of each inbound frame. One set of flyweights per channel: a request handler blocked on a full
 * reply path drains replies, so a reply handler can run nested inside a request handler, never deeper.
 *
 * <p>A frame that is malformed, names an unregistered handler or disagrees with its registration is counted,
 * reported on stderr (the first few) and dropped; it never reaches a handler.
 */
final class AmDispatcher implements ConduitListener, AmRendezvousPulls.Delivery {
    private static final CoreAccess CORE = CoreAccess.get();
    private static final int REPORTED_DROPS = 10;
    private static final String[] CONTEXT = {"an AM request handler", "an AM reply handler"};
    /** A frame that is not a rendezvous Long: no pull, no answer. */
    private static final int NOT_PULLED = -1;

    private final Am am;
    private final Client client;
    private final AmFrameFlyweight[] frames = {new AmFrameFlyweight(), new AmFrameFlyweight()};
    private final Token[] tokens;
    private final Args[] args = {new Args(), new Args()};
    private final Payload[] payloads = {new Payload(), new Payload()};

    private final AmLongEngine longEngine;
    /** Pulls the payloads of rendezvous Longs; null where the conduit reaches no peer's registered memory. */
    private final AmRendezvous rendezvous;
    /** Pulls them by RDMA read where the NIC reads peers' registrations by key (ofi, ibv), else null. */
    private final AmRendezvousPulls pulls;
    /** Whether the client's progress delivers {@link #pulls}' finished envelopes yet (set at the first pull). */
    private boolean pullProgress;
    private final AmStats stats;
    /** The top bit of the conduit's immediates: set for AM Long payloads, clear for {@link #otherWrites}'. */
    private final long longPayloadBit;
    /** Remote writes whose immediate is not an AM Long payload's (the RMA layer's puts with completion), or null. */
    private volatile RemoteWriteSink otherWrites;

    AmDispatcher(Am am, Client client, AmLongEngine longEngine, AmRendezvous rendezvous) {
        this.stats = am.stats;
        this.am = am;
        this.client = client;
        this.longEngine = longEngine;
        this.rendezvous = rendezvous;
        this.pulls = rendezvous == null || rendezvous.nic() == null ? null
            : new AmRendezvousPulls(rendezvous.nic(), this);
        if (pulls != null) {
            CORE.setRmaSink(client, CoreAccess.OWNER_AM_PULL, pulls);
        }
        this.tokens = new Token[] {new Token(am), new Token(am)};
        final int bits = client.capabilities().immediateBits();
        this.longPayloadBit = bits == 0 ? 0 : 1L << (bits - 1);
    }

    /** @see org.gexj.am.internal.AmAccess#setRemoteWriteSink */
    synchronized void setOtherWrites(RemoteWriteSink sink) {
        if (otherWrites != null) {
            throw new IllegalStateException("remote writes of other kinds go to " + otherWrites + " already");
        }
        otherWrites = java.util.Objects.requireNonNull(sink, "sink");
    }

    /** A frame: checked, then dispatched, unless it is a reassembled Long's envelope whose payload has not landed. */
    @Override
    public void onFrame(int channel, DirectBuffer buffer, int offset, int length) {
        final AmFrameFlyweight frame = frames[channel].wrap(buffer, offset, length);
        final AmHandler handler = check(channel, frame);
        if (handler == null) {
            return;
        }
        if (frame.isReassembly()) {
            if (longEngine == null || !longEngine.reassembles()) {
                drop(channel, "a reassembled Long on a conduit that moves Long payloads otherwise");
                return;
            }
            if (!longEngine.onEnvelope(channel, frame)) {
                return; // stored until its payload lands, or a duplicate the table counted
            }
        }
        if (frame.isRendezvous() && pulls != null) {
            startPull(channel, frame, handler);
            return;
        }
        dispatch(channel, frame, handler, NOT_PULLED);
    }

    /** Starts the RDMA read of a rendezvous Long's payload; its envelope is dispatched once the read is done. */
    private void startPull(int channel, AmFrameFlyweight frame, AmHandler handler) {
        if (!pullProgress) {
            pullProgress = true;
            CORE.setProgress(client, () -> pulls.progress(am.localSegment()));
        }
        final int code = pulls.start(frame, am.localSegment());
        if (code != AmRendezvousPulls.PULLING) {
            rendezvous.count(code);
            dispatch(channel, frame, handler, code); // refused at once: answered, no handler
        }
    }

    /** A rendezvous Long whose read finished ({@link AmRendezvousPulls#progress}, outside handlers). */
    @Override
    public void deliverPulled(DirectBuffer envelope, int length, int code) {
        final AmFrameFlyweight frame = frames[Conduit.REQUEST].wrap(envelope, 0, length);
        rendezvous.count(code);
        dispatch(Conduit.REQUEST, frame, am.handler(frame.handler()), code); // checked when it arrived
    }

    /**
     * A tagged write landed: a Long payload dispatches its envelope if that came first; another kind goes to its sink.
     */
    @Override
    public void onRemoteWrite(int source, long immediate) {
        if ((immediate & longPayloadBit) == 0) {
            final RemoteWriteSink sink = otherWrites;
            if (sink == null) {
                drop(Conduit.REQUEST, "a remote write from rank " + source + " with immediate 0x"
                    + Long.toHexString(immediate) + ", of a kind nothing here expects");
                return;
            }
            sink.onRemoteWrite(source, immediate);
            return;
        }
        if (longEngine == null || !longEngine.reassembles()) {
            drop(Conduit.REQUEST, "a remote write from rank " + source + " that no AM Long protocol here expects");
            return;
        }
        final int channel = longEngine.payloadLanded(source, immediate);
        if (channel >= 0) {
            final AmFrameFlyweight frame = frames[channel].wrap(longEngine.readyEnvelope(channel), 0,
                longEngine.readyLength(channel));
            // checked when it arrived
            dispatch(channel, frame, am.handler(frame.handler()), NOT_PULLED);
        }
    }

    /** @return the frame's handler if the frame is well formed and agrees with its registration, else null (dropped) */
    private AmHandler check(int channel, AmFrameFlyweight frame) {
        final String malformed = frame.validate();
        if (malformed != null) {
            drop(channel, malformed);
            return null;
        }
        final boolean request = frame.isRequest();
        if (request != (channel == Conduit.REQUEST)) {
            drop(channel, "a " + (request ? "request" : "reply") + " frame on the other channel");
            return null;
        }
        final int index = frame.handler();
        final AmHandler handler = am.handler(index);
        if (handler == null || !handler.accepts(frame.signature())) {
            drop(channel, "handler " + index + " is " + (handler == null ? "not registered" : handler.toString())
                + "; frame is a category " + frame.category() + " " + (request ? "request" : "reply") + " with "
                + frame.nargs() + " args");
            return null;
        }
        final int source = frame.source();
        if (source < 0 || source >= client.size()) {
            drop(channel, "source rank " + source + " outside [0, " + client.size() + ")");
            return null;
        }
        return handler;
    }

    /**
     * Runs the handler of a checked frame. A request that holds a credit slot gets a reply whatever the handler does:
     * its own, or the implicit one sent here; a reply that carries one of this rank's slots frees it once handled.
     *
     * @param pulledAlready for a rendezvous Long whose payload was read already (by RDMA), the pull's
     *                      {@code RegisteredAccess} code; else {@code NOT_PULLED}
     */
    private void dispatch(int channel, AmFrameFlyweight frame, AmHandler handler, int pulledAlready) {
        final boolean request = frame.isRequest();
        final int category = frame.category();
        final int index = frame.handler();
        final int source = frame.source();
        final DirectBuffer buffer = frame.buffer();
        final Payload payload = payloads[channel];
        int pulled = NOT_PULLED;
        if (category == AmFrameFlyweight.CATEGORY_MEDIUM) {
            payload.wrapMedium(buffer, frame.payloadIndex(), (int) frame.payloadLength());
        } else if (category == AmFrameFlyweight.CATEGORY_LONG) {
            if (frame.isRendezvous()) {
                pulled = pulledAlready == NOT_PULLED ? pull(frame, payload) : pulledAlready;
                if (pulledAlready == RegisteredAccess.OK) {
                    payload.wrapLong(am.localSegment(), frame.dest(), frame.payloadLength());
                }
            } else if (!deliverLong(channel, frame, payload)) {
                return;
            }
        }
        stats.received(category, request, frame.payloadLength());
        final Token token = tokens[channel];
        final Args a = args[channel];
        // credits exist only where Long payloads may be reassembled: smp reads neither field
        final int credit = longEngine == null ? -1 : frame.credit();
        token.activate(source, index, request, category == AmFrameFlyweight.CATEGORY_LONG, credit,
            credit < 0 ? 0 : frame.nonce());
        a.wrap(frame);
        final String previous = CORE.enterHandler(client, CONTEXT[channel]);
        try {
            if (pulled != NOT_PULLED && !answered(token, frame, pulled)) {
                return;
            }
            if (category == AmFrameFlyweight.CATEGORY_SHORT) {
                handler.shortBody().onMessage(token, a);
            } else {
                handler.payloadBody().onMessage(token, payload, a);
            }
        } finally {
            leaveHandler(request, token, previous, a, payload);
        }
        if (!request && credit >= 0) {
            retire(channel, source, credit);
        }
    }

    /**
     * After a handler, even one that threw: the implicit reply that returns a request's credit slot if the handler did
     * not reply, then the handler context ends. Apart from {@link #dispatch}, whose every exit would repeat it.
     */
    private void leaveHandler(boolean request, Token token, String previous, Args a, Payload payload) {
        try {
            if (request && token.creditSlot >= 0 && !token.replied) {
                token.replyShort(Am.CREDIT_RETURN);
            }
        } finally {
            CORE.exitHandler(client, previous);
            token.deactivate();
            a.invalidate();
            payload.invalidate();
        }
    }

    private void retire(int channel, int source, int credit) {
        if (!longEngine.retire(source, credit)) {
            drop(channel, "a reply from rank " + source + " returning credit slot " + credit
                + ", which this rank does not hold");
        }
    }

    /**
     * Pulls a rendezvous Long's payload into place and wraps the view if it came. @return a {@code RegisteredAccess}
     * code, {@code ELSEWHERE} where nothing here pulls
     */
    private int pull(AmFrameFlyweight frame, Payload payload) {
        final MemorySegment local = am.localSegment();
        final int code = rendezvous == null ? RegisteredAccess.ELSEWHERE : rendezvous.pull(frame, local);
        if (code == RegisteredAccess.OK) {
            payload.wrapLong(local, frame.dest(), frame.payloadLength());
        }
        return code;
    }

    /**
     * Tells a rendezvous Long's sender, before its handler runs, that its source may be reused, or why nothing was
     * pulled. @return whether the handler is to run
     */
    private boolean answered(Token token, AmFrameFlyweight frame, int code) {
        AmRendezvous.answer(am.sender, token, frame, code);
        if (code != RegisteredAccess.OK) {
            drop(Conduit.REQUEST, "the payload of a rendezvous Long from rank " + frame.source() + " could not be"
                + " pulled: " + AmRendezvous.describe(code));
            return false;
        }
        return true;
    }

    /** Puts an inline Long payload in place (cross-mapped conduits wrote it already), then wraps the view. */
    private boolean deliverLong(int channel, AmFrameFlyweight frame, Payload payload) {
        final long length = frame.payloadLength();
        final long dest = frame.dest();
        if (length == 0) {
            payload.wrapLong(MemorySegment.NULL, dest, 0);
            return true;
        }
        final MemorySegment local = am.localSegment();
        if (local == null || dest < 0 || dest > local.byteSize() - length) {
            drop(channel, "Long payload [" + dest + ", " + (dest + length) + ") outside the local segment of "
                + (local == null ? 0 : local.byteSize()) + " bytes");
            return false;
        }
        if (frame.isInline()) {
            Memory.copy(frame.buffer(), frame.payloadIndex(), local, dest, length);
        }
        payload.wrapLong(local, dest, length);
        return true;
    }

    private void drop(int channel, String why) {
        am.countDropped();
        if (am.droppedFrames() <= REPORTED_DROPS) {
            System.err.println("gex: rank " + client.rank() + " dropped an AM frame on the "
                + (channel == Conduit.REQUEST ? "request" : "reply") + " channel: " + why);
        }
    }
}
