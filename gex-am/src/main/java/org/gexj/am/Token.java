package org.gexj.am;

import org.gexj.Lc;
import org.gexj.am.wire.AmFrameFlyweight;
import org.gexj.spi.Conduit;

import java.lang.foreign.MemorySegment;

/**
 * The identity of the AM being handled ({@code gex_Token_t}): its source and kind, and — in a request handler —
 * the only way to reply, at most once. Valid only during its handler; a flyweight reused for the next message.
 *
 * <p>A Medium reply can take its payload from a source segment, or from the {@link Payload} the request delivered
 * ({@code replyMedium(handler, payload, at, nbytes, lc, ...)}), as GASNet's handlers pass their {@code buf} to
 * {@code gex_AM_ReplyMedium}: the bytes are copied from where they were delivered straight into the reply's frame,
 * with no buffer of the handler's own in between. That is safe because the request's frame stays in place until its
 * handler returns, and the reply is written to the other channel.
 */
public final class Token extends TokenReplySends {
    final Am am;
    /** Where this token's replies are sent: {@code am}'s, kept here so a reply loads one field, not two. */
    private final AmSender sender;
    int source;
    private int handler;
    private boolean request;
    private boolean isLong;
    private boolean active;
    boolean replied;
    Thread thread;
    /** The requester's credit slot this request holds (its reply carries it back), or -1. */
    int creditSlot = -1;
    /** The reassembly nonce of this request, which a reassembled Long reply reuses. */
    int nonce;

    Token(Am am) {
        this.am = am;
        this.sender = am.sender;
    }

    void activate(int source, int handler, boolean request, boolean isLong, int creditSlot, int nonce) {
        this.creditSlot = request ? creditSlot : -1;
        this.nonce = nonce;
        this.source = source;
        this.handler = handler;
        this.request = request;
        this.isLong = isLong;
        this.replied = false;
        final Thread me = Thread.currentThread();
        if (thread != me) { // unchanged mostly: G1 fences a reference store (DESIGN section 12)
            thread = me;
        }
        this.active = true;
    }

    void deactivate() {
        active = false;
    }

    boolean active() {
        return active;
    }

    /** Rank that sent this message ({@code GEX_TI_SRCRANK}). */
    public int sourceRank() {
        checkActive();
        return source;
    }

    /** Handler index this message was sent to ({@code GEX_TI_ENTRY}). */
    public int handlerIndex() {
        checkActive();
        return handler;
    }

    /** True in a request handler, false in a reply handler ({@code GEX_TI_IS_REQ}). */
    public boolean isRequest() {
        checkActive();
        return request;
    }

    /** True for a Long message ({@code GEX_TI_IS_LONG}). */
    public boolean isLong() {
        checkActive();
        return isLong;
    }

    /** Largest Medium reply payload to this token's source. */
    public long maxReplyMedium(int nargs) {
        checkActive();
        return am.maxReplyMedium(source, nargs);
    }

    /** Largest Long reply payload to this token's source. */
    public long maxReplyLong(int nargs) {
        checkActive();
        return am.maxReplyLong(source, nargs);
    }

    /** Negotiated-payload Medium reply: see {@link Am#prepareRequestMedium}. */
    public SrcDesc prepareReplyMedium(MemorySegment clientBuffer, long leastPayload, long mostPayload, Lc lc,
                                      int flags, int nargs) {
        AmChecks.replyContext(am.client, this);
        return am.npam.prepare(this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_MEDIUM, clientBuffer,
            leastPayload, mostPayload, 0, lc, flags, nargs);
    }

    /** Negotiated-payload Long reply into the requester's segment at {@code dest}. */
    public SrcDesc prepareReplyLong(MemorySegment clientBuffer, long leastPayload, long mostPayload, long dest,
                                    Lc lc, int flags, int nargs) {
        AmChecks.replyContext(am.client, this);
        return am.npam.prepare(this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_LONG, clientBuffer,
            leastPayload, mostPayload, dest, lc, flags, nargs);
    }

    private void checkActive() {
        if (!active) {
            throw new IllegalStateException("an AM token is valid only during its handler");
        }
    }

    // the public replies (replyShort, tryReplyMedium, ...) are generated into TokenReplySends: see Am.request

    @Override
    int reply(int category, int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc, int flags,
              int nargs, int a0, int a1, int a2, int a3) {
        return sender.send(this, source, category, handler, src, srcOffset, nbytes, dest, lc, flags, nargs, a0, a1, a2,
            a3);
    }

    @Override
    int reply(int category, int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc, int flags,
              int[] args, int nargs) {
        return sender.send(this, source, category, handler, src, srcOffset, nbytes, dest, lc, flags, args, nargs);
    }

    @Override
    int replyFromPayload(int handler, Payload src, long srcAt, long nbytes, Lc lc, int flags, int nargs, int a0, int a1,
                         int a2, int a3) {
        return sender.sendFromPayload(this, handler, src, srcAt, nbytes, lc, flags, nargs, a0, a1, a2, a3);
    }

    @Override
    int replyFromPayload(int handler, Payload src, long srcAt, long nbytes, Lc lc, int flags, int[] args, int nargs) {
        return sender.sendFromPayload(this, handler, src, srcAt, nbytes, lc, flags, args, nargs);
    }
}
