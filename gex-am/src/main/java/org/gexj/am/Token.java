package org.gexj.am;

import org.agrona.concurrent.AtomicBuffer;
import org.gexj.Flags;
import org.gexj.Lc;
import org.gexj.am.wire.AmFrameFlyweight;
import org.gexj.spi.Claim;
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
public final class Token {
    final Am am;
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
    }

    void activate(int source, int handler, boolean request, boolean isLong, int creditSlot, int nonce) {
        this.creditSlot = request ? creditSlot : -1;
        this.nonce = nonce;
        this.source = source;
        this.handler = handler;
        this.request = request;
        this.isLong = isLong;
        this.replied = false;
        this.thread = Thread.currentThread();
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
        am.checkReplyContext(this);
        return am.prepare(this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_MEDIUM, clientBuffer, leastPayload,
            mostPayload, 0, lc, flags, nargs);
    }

    /** Negotiated-payload Long reply into the requester's segment at {@code dest}. */
    public SrcDesc prepareReplyLong(MemorySegment clientBuffer, long leastPayload, long mostPayload, long dest,
                                    Lc lc, int flags, int nargs) {
        am.checkReplyContext(this);
        return am.prepare(this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_LONG, clientBuffer, leastPayload,
            mostPayload, dest, lc, flags, nargs);
    }

    private void checkActive() {
        if (!active) {
            throw new IllegalStateException("an AM token is valid only during its handler");
        }
    }

    // BEGIN GENERATED SENDS (tools/gen_am_overloads.py)
    /** Sends a Short reply with 0 args; waits for resources. @return {@link Am#OK} */
    public int replyShort(int handler) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_SHORT, handler, 0, 0, null, 0, 0, 0, Lc.NOW);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Short reply with 1 args; waits for resources. @return {@link Am#OK} */
    public int replyShort(int handler, int a0) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_SHORT, handler, 1, 0, null, 0, 0, 0, Lc.NOW);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Short reply with 2 args; waits for resources. @return {@link Am#OK} */
    public int replyShort(int handler, int a0, int a1) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_SHORT, handler, 2, 0, null, 0, 0, 0, Lc.NOW);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Short reply with 3 args; waits for resources. @return {@link Am#OK} */
    public int replyShort(int handler, int a0, int a1, int a2) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_SHORT, handler, 3, 0, null, 0, 0, 0, Lc.NOW);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Short reply with 4 args; waits for resources. @return {@link Am#OK} */
    public int replyShort(int handler, int a0, int a1, int a2, int a3) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_SHORT, handler, 4, 0, null, 0, 0, 0, Lc.NOW);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 12, a3);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Short reply with 0 args only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyShort(int handler) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_SHORT, handler, 0, Flags.IMMEDIATE, null, 0, 0, 0, Lc.NOW);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Short reply with 1 args only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyShort(int handler, int a0) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_SHORT, handler, 1, Flags.IMMEDIATE, null, 0, 0, 0, Lc.NOW);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Short reply with 2 args only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyShort(int handler, int a0, int a1) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_SHORT, handler, 2, Flags.IMMEDIATE, null, 0, 0, 0, Lc.NOW);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Short reply with 3 args only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyShort(int handler, int a0, int a1, int a2) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_SHORT, handler, 3, Flags.IMMEDIATE, null, 0, 0, 0, Lc.NOW);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Short reply with 4 args only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyShort(int handler, int a0, int a1, int a2, int a3) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_SHORT, handler, 4, Flags.IMMEDIATE, null, 0, 0, 0, Lc.NOW);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 12, a3);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Short reply with {@code nargs} args taken from {@code args} (reused by the caller).
     *
     * @param flags 0 or {@link org.gexj.Flags#IMMEDIATE}
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} if IMMEDIATE and resources were short (nothing sent)
     */
    public int replyShort(int handler, int flags, int[] args, int nargs) {
        am.checkReplyContext(this);
        Am.checkArgs(args, nargs);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_SHORT, handler, nargs, flags, null, 0, 0, 0, Lc.NOW);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        for (int i = 0; i < nargs; i++) {
            b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4 * i, args[i]);
        }
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Medium reply with 0 args; waits for resources. @return {@link Am#OK} */
    public int replyMedium(int handler, MemorySegment src, long srcOffset, long nbytes, Lc lc) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_MEDIUM, handler, 0, 0, src, srcOffset, nbytes, 0, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Medium reply with 1 args; waits for resources. @return {@link Am#OK} */
    public int replyMedium(int handler, MemorySegment src, long srcOffset, long nbytes, Lc lc, int a0) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_MEDIUM, handler, 1, 0, src, srcOffset, nbytes, 0, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Medium reply with 2 args; waits for resources. @return {@link Am#OK} */
    public int replyMedium(int handler, MemorySegment src, long srcOffset, long nbytes, Lc lc, int a0, int a1) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_MEDIUM, handler, 2, 0, src, srcOffset, nbytes, 0, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Medium reply with 3 args; waits for resources. @return {@link Am#OK} */
    public int replyMedium(int handler, MemorySegment src, long srcOffset, long nbytes, Lc lc, int a0, int a1, int a2) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_MEDIUM, handler, 3, 0, src, srcOffset, nbytes, 0, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Medium reply with 4 args; waits for resources. @return {@link Am#OK} */
    public int replyMedium(int handler, MemorySegment src, long srcOffset, long nbytes, Lc lc, int a0, int a1, int a2, int a3) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_MEDIUM, handler, 4, 0, src, srcOffset, nbytes, 0, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 12, a3);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Medium reply with 0 args only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyMedium(int handler, MemorySegment src, long srcOffset, long nbytes, Lc lc) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_MEDIUM, handler, 0, Flags.IMMEDIATE, src, srcOffset, nbytes, 0, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Medium reply with 1 args only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyMedium(int handler, MemorySegment src, long srcOffset, long nbytes, Lc lc, int a0) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_MEDIUM, handler, 1, Flags.IMMEDIATE, src, srcOffset, nbytes, 0, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Medium reply with 2 args only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyMedium(int handler, MemorySegment src, long srcOffset, long nbytes, Lc lc, int a0, int a1) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_MEDIUM, handler, 2, Flags.IMMEDIATE, src, srcOffset, nbytes, 0, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Medium reply with 3 args only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyMedium(int handler, MemorySegment src, long srcOffset, long nbytes, Lc lc, int a0, int a1, int a2) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_MEDIUM, handler, 3, Flags.IMMEDIATE, src, srcOffset, nbytes, 0, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Medium reply with 4 args only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyMedium(int handler, MemorySegment src, long srcOffset, long nbytes, Lc lc, int a0, int a1, int a2, int a3) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_MEDIUM, handler, 4, Flags.IMMEDIATE, src, srcOffset, nbytes, 0, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 12, a3);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Medium reply with {@code nargs} args taken from {@code args} (reused by the caller).
     *
     * @param flags 0 or {@link org.gexj.Flags#IMMEDIATE}
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} if IMMEDIATE and resources were short (nothing sent)
     */
    public int replyMedium(int handler, MemorySegment src, long srcOffset, long nbytes, Lc lc, int flags, int[] args, int nargs) {
        am.checkReplyContext(this);
        Am.checkArgs(args, nargs);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_MEDIUM, handler, nargs, flags, src, srcOffset, nbytes, 0, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        for (int i = 0; i < nargs; i++) {
            b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4 * i, args[i]);
        }
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Medium reply with 0 args and {@code nbytes} of {@code src} from {@code srcAt} as payload; waits for resources. @return {@link Am#OK} */
    public int replyMedium(int handler, Payload src, long srcAt, long nbytes, Lc lc) {
        am.checkReplyContext(this);
        final Claim c = am.beginMedium(am.sendClaim(), this, source, Conduit.REPLY, handler, 0, 0, src, srcAt, nbytes, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Medium reply with 1 args and {@code nbytes} of {@code src} from {@code srcAt} as payload; waits for resources. @return {@link Am#OK} */
    public int replyMedium(int handler, Payload src, long srcAt, long nbytes, Lc lc, int a0) {
        am.checkReplyContext(this);
        final Claim c = am.beginMedium(am.sendClaim(), this, source, Conduit.REPLY, handler, 1, 0, src, srcAt, nbytes, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Medium reply with 2 args and {@code nbytes} of {@code src} from {@code srcAt} as payload; waits for resources. @return {@link Am#OK} */
    public int replyMedium(int handler, Payload src, long srcAt, long nbytes, Lc lc, int a0, int a1) {
        am.checkReplyContext(this);
        final Claim c = am.beginMedium(am.sendClaim(), this, source, Conduit.REPLY, handler, 2, 0, src, srcAt, nbytes, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Medium reply with 3 args and {@code nbytes} of {@code src} from {@code srcAt} as payload; waits for resources. @return {@link Am#OK} */
    public int replyMedium(int handler, Payload src, long srcAt, long nbytes, Lc lc, int a0, int a1, int a2) {
        am.checkReplyContext(this);
        final Claim c = am.beginMedium(am.sendClaim(), this, source, Conduit.REPLY, handler, 3, 0, src, srcAt, nbytes, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Medium reply with 4 args and {@code nbytes} of {@code src} from {@code srcAt} as payload; waits for resources. @return {@link Am#OK} */
    public int replyMedium(int handler, Payload src, long srcAt, long nbytes, Lc lc, int a0, int a1, int a2, int a3) {
        am.checkReplyContext(this);
        final Claim c = am.beginMedium(am.sendClaim(), this, source, Conduit.REPLY, handler, 4, 0, src, srcAt, nbytes, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 12, a3);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Medium reply with 0 args and {@code nbytes} of {@code src} from {@code srcAt} as payload only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyMedium(int handler, Payload src, long srcAt, long nbytes, Lc lc) {
        am.checkReplyContext(this);
        final Claim c = am.beginMedium(am.sendClaim(), this, source, Conduit.REPLY, handler, 0, Flags.IMMEDIATE, src, srcAt, nbytes, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Medium reply with 1 args and {@code nbytes} of {@code src} from {@code srcAt} as payload only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyMedium(int handler, Payload src, long srcAt, long nbytes, Lc lc, int a0) {
        am.checkReplyContext(this);
        final Claim c = am.beginMedium(am.sendClaim(), this, source, Conduit.REPLY, handler, 1, Flags.IMMEDIATE, src, srcAt, nbytes, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Medium reply with 2 args and {@code nbytes} of {@code src} from {@code srcAt} as payload only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyMedium(int handler, Payload src, long srcAt, long nbytes, Lc lc, int a0, int a1) {
        am.checkReplyContext(this);
        final Claim c = am.beginMedium(am.sendClaim(), this, source, Conduit.REPLY, handler, 2, Flags.IMMEDIATE, src, srcAt, nbytes, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Medium reply with 3 args and {@code nbytes} of {@code src} from {@code srcAt} as payload only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyMedium(int handler, Payload src, long srcAt, long nbytes, Lc lc, int a0, int a1, int a2) {
        am.checkReplyContext(this);
        final Claim c = am.beginMedium(am.sendClaim(), this, source, Conduit.REPLY, handler, 3, Flags.IMMEDIATE, src, srcAt, nbytes, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Medium reply with 4 args and {@code nbytes} of {@code src} from {@code srcAt} as payload only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyMedium(int handler, Payload src, long srcAt, long nbytes, Lc lc, int a0, int a1, int a2, int a3) {
        am.checkReplyContext(this);
        final Claim c = am.beginMedium(am.sendClaim(), this, source, Conduit.REPLY, handler, 4, Flags.IMMEDIATE, src, srcAt, nbytes, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 12, a3);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Medium reply with {@code nargs} args taken from {@code args} (reused by the caller) and {@code nbytes} of {@code src} from {@code srcAt} as payload.
     *
     * @param flags 0 or {@link org.gexj.Flags#IMMEDIATE}
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} if IMMEDIATE and resources were short (nothing sent)
     */
    public int replyMedium(int handler, Payload src, long srcAt, long nbytes, Lc lc, int flags, int[] args, int nargs) {
        am.checkReplyContext(this);
        Am.checkArgs(args, nargs);
        final Claim c = am.beginMedium(am.sendClaim(), this, source, Conduit.REPLY, handler, nargs, flags, src, srcAt, nbytes, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        for (int i = 0; i < nargs; i++) {
            b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4 * i, args[i]);
        }
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Long reply with 0 args; waits for resources. @return {@link Am#OK} */
    public int replyLong(int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_LONG, handler, 0, 0, src, srcOffset, nbytes, dest, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Long reply with 1 args; waits for resources. @return {@link Am#OK} */
    public int replyLong(int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc, int a0) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_LONG, handler, 1, 0, src, srcOffset, nbytes, dest, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Long reply with 2 args; waits for resources. @return {@link Am#OK} */
    public int replyLong(int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc, int a0, int a1) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_LONG, handler, 2, 0, src, srcOffset, nbytes, dest, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Long reply with 3 args; waits for resources. @return {@link Am#OK} */
    public int replyLong(int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc, int a0, int a1, int a2) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_LONG, handler, 3, 0, src, srcOffset, nbytes, dest, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /** Sends a Long reply with 4 args; waits for resources. @return {@link Am#OK} */
    public int replyLong(int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc, int a0, int a1, int a2, int a3) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_LONG, handler, 4, 0, src, srcOffset, nbytes, dest, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 12, a3);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Long reply with 0 args only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyLong(int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_LONG, handler, 0, Flags.IMMEDIATE, src, srcOffset, nbytes, dest, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Long reply with 1 args only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyLong(int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc, int a0) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_LONG, handler, 1, Flags.IMMEDIATE, src, srcOffset, nbytes, dest, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Long reply with 2 args only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyLong(int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc, int a0, int a1) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_LONG, handler, 2, Flags.IMMEDIATE, src, srcOffset, nbytes, dest, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Long reply with 3 args only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyLong(int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc, int a0, int a1, int a2) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_LONG, handler, 3, Flags.IMMEDIATE, src, srcOffset, nbytes, dest, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Long reply with 4 args only if resources are free now ({@link org.gexj.Flags#IMMEDIATE}).
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent
     */
    public int tryReplyLong(int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc, int a0, int a1, int a2, int a3) {
        am.checkReplyContext(this);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_LONG, handler, 4, Flags.IMMEDIATE, src, srcOffset, nbytes, dest, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 0, a0);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4, a1);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 8, a2);
        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 12, a3);
        am.commit(c);
        replied = true;
        return Am.OK;
    }

    /**
     * Sends a Long reply with {@code nargs} args taken from {@code args} (reused by the caller).
     *
     * @param flags 0 or {@link org.gexj.Flags#IMMEDIATE}
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} if IMMEDIATE and resources were short (nothing sent)
     */
    public int replyLong(int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc, int flags, int[] args, int nargs) {
        am.checkReplyContext(this);
        Am.checkArgs(args, nargs);
        final Claim c = am.begin(am.sendClaim(), this, source, Conduit.REPLY, AmFrameFlyweight.CATEGORY_LONG, handler, nargs, flags, src, srcOffset, nbytes, dest, lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        final AtomicBuffer b = c.buffer();
        final int at = c.offset();
        for (int i = 0; i < nargs; i++) {
            b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4 * i, args[i]);
        }
        am.commit(c);
        replied = true;
        return Am.OK;
    }
    // END GENERATED SENDS
}
