package org.gexj.testam;

import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Args;
import org.gexj.am.Direction;
import org.gexj.am.Payload;
import org.gexj.am.Token;

import java.lang.foreign.MemorySegment;

/**
 * testam's AM handlers, with GASNet's indices: a ping replies with its pong, in the same category and with the payload
 * GASNet's handler sends back; a pong advances {@link Exchange#flag}; DONE stops the rank's {@code -p} pollers.
 * Registered once, so the timed loops allocate nothing; payloads live in preallocated memory.
 */
final class Handlers {
    static final int PING_SHORT = 201;
    static final int PONG_SHORT = 202;
    static final int PING_MEDIUM = 203;
    static final int PONG_MEDIUM = 204;
    static final int PING_LONG = 205;
    static final int PONG_LONG = 206;
    static final int PING_SHORT_FLOOD = 207;
    static final int PONG_SHORT_FLOOD = 208;
    static final int PING_MEDIUM_FLOOD = 209;
    static final int PONG_MEDIUM_FLOOD = 210;
    static final int PING_LONG_FLOOD = 211;
    static final int PONG_LONG_FLOOD = 212;
    static final int DONE = 213;
    /** Long replies land at the start of the requester's segment. */
    private static final long REPLY_DEST = 0;

    private final TestAmOptions options;
    private final SourceFiller filler;
    private final MemorySegment segment;
    /** The part of this rank's segment where Long requests land, whose bytes a Long ping handler replies with. */
    private final MemorySegment requestLanding;
    /** A Medium ping handler's own buffer, for the cases where GASNet's handler would write to the received one. */
    private final MemorySegment echo;

    Handlers(TestAmOptions options, SourceFiller filler, MemorySegment segment, MemorySegment requestLanding,
             MemorySegment echo) {
        this.options = options;
        this.filler = filler;
        this.segment = segment;
        this.requestLanding = requestLanding;
        this.echo = echo;
    }

    /** Registers every handler: the pongs count on {@code exchange}, DONE finishes {@code pollers}. */
    void register(Am am, Exchange exchange, Pollers pollers) {
        final Exchange ex = exchange; // captured by the pongs, which then count through no other object
        am.register(PING_SHORT, AmHandler.shortRequest(0, (t, a) -> t.replyShort(PONG_SHORT)));
        am.register(PONG_SHORT, AmHandler.ofShort(Direction.REQREP, 0, (t, a) -> ex.flag++));
        am.register(PING_MEDIUM, AmHandler.mediumRequest(0, this::pingMedium));
        am.register(PONG_MEDIUM, AmHandler.ofMedium(Direction.REQREP, 0, (t, p, a) -> ex.flag++));
        am.register(PING_LONG, AmHandler.longRequest(0, this::pingLong));
        am.register(PONG_LONG, AmHandler.ofLong(Direction.REQREP, 0, (t, p, a) -> ex.flag++));
        am.register(PING_SHORT_FLOOD, AmHandler.shortRequest(0, (t, a) -> t.replyShort(PONG_SHORT_FLOOD)));
        am.register(PONG_SHORT_FLOOD, AmHandler.ofShort(Direction.REQREP, 0, (t, a) -> ex.flag++));
        am.register(PING_MEDIUM_FLOOD, AmHandler.mediumRequest(0, this::pingMediumFlood));
        am.register(PONG_MEDIUM_FLOOD, AmHandler.ofMedium(Direction.REQREP, 0, (t, p, a) -> ex.flag++));
        am.register(PING_LONG_FLOOD, AmHandler.longRequest(0, this::pingLongFlood));
        am.register(PONG_LONG_FLOOD, AmHandler.ofLong(Direction.REQREP, 0, (t, p, a) -> ex.flag++));
        am.register(DONE, AmHandler.shortRequest(0, (t, a) -> pollers.finish()));
    }

    private void pingMedium(Token t, Payload p, Args a) {
        replyMedium(t, p, PONG_MEDIUM);
    }

    private void pingMediumFlood(Token t, Payload p, Args a) {
        replyMedium(t, p, PONG_MEDIUM_FLOOD);
    }

    /** Replies with the received payload as GASNet's handler does with its buffer, as fixed or negotiated payload. */
    private void replyMedium(Token t, Payload p, int pong) {
        final long n = p.length();
        switch (options.payload()) {
            case FIXED -> {
                if (options.source() == TestAmOptions.SourceMode.NOOP) {
                    t.replyMedium(pong, p, 0, n, Lc.NOW);
                } else {
                    // GASNet's handler fills the buffer it received; a delivered payload is read-only, so fill ours
                    filler.fill(echo, 0, n);
                    t.replyMedium(pong, echo, 0, n, Lc.NOW);
                }
            }
            case NEGOTIATED_GASNET_BUFFER -> filler.commit(t.prepareReplyMedium(null, n, n, null, 0, 0), pong, n);
            // GASNet offers the received buffer as the client buffer; a delivered payload is no segment, so offer ours
            case NEGOTIATED_CLIENT_BUFFER -> filler.commit(t.prepareReplyMedium(echo, n, n, Lc.NOW, 0, 0), pong, n);
        }
    }

    private void pingLong(Token t, Payload p, Args a) {
        replyLong(t, p, PONG_LONG);
    }

    private void pingLongFlood(Token t, Payload p, Args a) {
        replyLong(t, p, PONG_LONG_FLOOD);
    }

    /** Replies with the bytes the request put in this segment, as fixed or negotiated payload. */
    private void replyLong(Token t, Payload p, int pong) {
        final long n = p.length();
        switch (options.payload()) {
            case FIXED -> {
                filler.fill(segment, p.segmentOffset(), n);
                t.replyLong(pong, segment, p.segmentOffset(), n, REPLY_DEST, Lc.NOW);
            }
            case NEGOTIATED_GASNET_BUFFER ->
                filler.commit(t.prepareReplyLong(null, n, n, REPLY_DEST, null, 0, 0), pong, n);
            case NEGOTIATED_CLIENT_BUFFER ->
                filler.commit(t.prepareReplyLong(requestLanding, n, n, REPLY_DEST, Lc.NOW, 0, 0), pong, n);
        }
    }
}
