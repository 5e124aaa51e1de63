package org.gexj.am;

import org.agrona.concurrent.AtomicBuffer;
import org.gexj.Client;
import org.gexj.Event;
import org.gexj.Flags;
import org.gexj.GexTimeoutException;
import org.gexj.HandlerContextException;
import org.gexj.Lc;
import org.gexj.am.internal.AmAccess;
import org.gexj.am.wire.AmFrameFlyweight;
import org.gexj.internal.CoreAccess;
import org.gexj.internal.PayloadCopy;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Active messages over a client's conduit: handler registration, Short/Medium/Long requests (replies are sent
 * through the {@link Token}), negotiated payload, limits. One instance per client: {@link #of(Client)}.
 *
 * <p>Contracts (GASNet-EX): delivery is reliable and unordered; a Long payload is in place in the target segment
 * before its handler runs; a request handler replies at most once; a reply handler sends nothing; handlers do not
 * poll, wait or send requests — each violation throws {@link HandlerContextException} at the offending call.
 * Bad ranks, handler indices, arities, lengths and offsets throw {@link IllegalArgumentException} before anything
 * is sent; a null handler, lc, or source buffer with bytes to send throws {@link NullPointerException} naming the
 * parameter; any call after the client is closed throws {@link IllegalStateException}. A 0-byte Long writes nothing,
 * so its {@code dest} is passed to the handler unchecked, as GASNet-EX passes it. Sends wait for resources (running
 * handlers meanwhile) unless {@link Flags#IMMEDIATE} is given, in which case they return {@link #BACK_PRESSURED} and
 * send nothing. A path that stays full longer than {@code GEX_BACKPRESSURE_TIMEOUT} seconds ends in
 * {@link GexTimeoutException}.
 *
 * <p>Local completion: payloads are copied out of the source before a send returns, so {@link Lc#NOW},
 * {@link Lc#GROUP} and explicit events are all complete at return.
 */
public final class Am extends AmRequestSends {
    private static final CoreAccess CORE = CoreAccess.get();

    static {
        AmAccess.install(new AmAccess() {
            @Override
            public int registerSystem(Am am, int index, AmHandler handler) {
                return am.registerSystem(index, handler);
            }
        });
    }
    /** Sent. */
    public static final int OK = 0;
    /** Not sent: IMMEDIATE was given and the conduit had no room. */
    public static final int BACK_PRESSURED = 1;
    /** Args per message ({@code gex_AM_MaxArgs}). */
    public static final int MAX_ARGS = AmFrameFlyweight.MAX_ARGS;
    /** First client handler index ({@code GEX_AM_INDEX_BASE}); 1..127 are the library's. */
    public static final int INDEX_BASE = 128;
    public static final int MAX_INDEX = 255;

    /** The restricted context between NPAM prepare and commit; compared by identity. */
    private static final String NPAM_CONTEXT = "an NPAM prepare/commit pair";

    final Client client;
    final Conduit conduit;
    private final Capabilities capabilities;
    private final int rank;
    private final int size;
    private final AmHandler[] handlers = new AmHandler[MAX_INDEX + 1];
    private final long maxMedium;
    private final long maxLong;
    /** How Long payloads travel on conduits that do not cross-map segments; null on those that do. */
    private final AmLongEngine longEngine;
    final AmStats stats;
    /**
     * The reply a request handler's dispatcher sends when the handler did not reply to a request that holds a credit
     * slot: it carries the slot back (GASNet's implicit reply).
     */
    static final int CREDIT_RETURN = 1;
    private final long backPressureTimeoutNs;
    private final ThreadLocal<SrcDesc> srcDescs;
    /**
     * Each sending thread's claim: a handler's reply on a thread waiting to send reuses it before that send has one.
     */
    private final ThreadLocal<Claim> sendClaims = ThreadLocal.withInitial(() -> new Claim(Thread.currentThread()));
    private Claim lastClaim = new Claim(null);
    private final AtomicLong droppedFrames = new AtomicLong();
    private volatile MemorySegment[] peerSegments;

    private Am(Client client) {
        this.client = client;
        this.stats = new AmStats(client.config().getBoolean("GEX_STATS", false));
        this.conduit = CORE.conduit(client);
        this.capabilities = conduit.capabilities();
        this.rank = client.rank();
        this.size = client.size();
        final long frameLimit = capabilities.maxFrameLength() - AmFrameFlyweight.payloadOffset(MAX_ARGS);
        // the conduit's Medium (udp: one datagram's worth) is the default; a user may ask for up to a whole frame
        final long conduitMedium = Math.min(capabilities.maxMediumRequest(), capabilities.maxMediumReply());
        this.maxMedium = client.config().getLong("GEX_AM_MAX_MEDIUM",
            Math.max(512, Math.min(Math.min(65536, frameLimit), conduitMedium)), 512, frameLimit);
        this.backPressureTimeoutNs =
            client.config().getLong("GEX_BACKPRESSURE_TIMEOUT", 60, 1, 86_400) * 1_000_000_000L;
        // a packed Long carries its payload in the frame: up to the conduit's frame (udp fragments frames of any size)
        this.longEngine = capabilities.crossMapped() ? null
            : new AmLongEngine(this, client, conduit, capabilities, frameLimit, backPressureTimeoutNs);
        // the frame's length field bounds every Long; a conduit may bound it further
        final long conduitLong = Math.min(AmFrameFlyweight.MAX_PAYLOAD,
            Math.min(capabilities.maxLongRequest(), capabilities.maxLongReply()));
        this.maxLong = longEngine == null ? conduitLong : longEngine.maxLong(conduitLong);
        this.srcDescs = ThreadLocal.withInitial(() -> new SrcDesc(this));
        registerSystem(CREDIT_RETURN, AmHandler.shortReply(0, (token, args) -> { }).named("credit-return"));
        CORE.setListener(client, new AmDispatcher(this, client, longEngine));
        CORE.addStats(client, stats::snapshot);
    }

    /**
     * The client's AM layer. {@code Gex.init} creates it on every rank before it returns, with the library's own
     * handlers, so this only looks it up; the client's handlers are the caller's to register on every rank before
     * peers send to them.
     */
    public static Am of(Client client) {
        return CORE.extension(client, Am.class, Am::new);
    }

    public Client client() {
        return client;
    }

    /**
     * Registers {@code handler} at the highest free index in [128, 255] ({@code gex_index = 0}). Not collective:
     * register the same table on every rank, then barrier before peers send.
     *
     * @return the index
     */
    public int register(AmHandler handler) {
        return register(0, handler);
    }

    /**
     * Registers {@code handler} at {@code index}: 0 picks the highest free index; otherwise 128..255, unused.
     *
     * @return the index
     */
    public synchronized int register(int index, AmHandler handler) {
        Objects.requireNonNull(handler, "handler");
        if (index == 0) {
            for (int i = MAX_INDEX; i >= INDEX_BASE; i--) {
                if (handlers[i] == null) {
                    handlers[i] = handler;
                    return i;
                }
            }
            throw new IllegalArgumentException("all " + (MAX_INDEX - INDEX_BASE + 1)
                + " client handler indices [128, 255] are taken");
        }
        if (index < INDEX_BASE || index > MAX_INDEX) {
            throw new IllegalArgumentException("handler index " + index + " must be 0 (pick one) or in [128, 255]");
        }
        return put(index, handler);
    }

    /** Registers a handler of another GEX/J module at a library index in [1, 127] ({@link AmAccess}). */
    synchronized int registerSystem(int index, AmHandler handler) {
        Objects.requireNonNull(handler, "handler");
        if (index < 1 || index >= INDEX_BASE) {
            throw new IllegalArgumentException("library handler index " + index + " outside [1, 127]");
        }
        return put(index, handler);
    }

    private int put(int index, AmHandler handler) {
        if (handlers[index] != null) {
            throw new IllegalArgumentException("handler index " + index + " is already registered ("
                + handlers[index] + ")");
        }
        handlers[index] = handler;
        return index;
    }

    /** The handler registered at {@code index}, or null. */
    public AmHandler handler(int index) {
        return index >= 0 && index <= MAX_INDEX ? handlers[index] : null;
    }

    // ---------------------------------------------------------------------------------------------- limits

    public int maxArgs() {
        return MAX_ARGS;
    }

    /** Largest Medium request payload to {@code peer} (-1: any peer) with {@code nargs} args. */
    public long maxRequestMedium(int peer, int nargs) {
        checkLimitArgs(peer, nargs);
        return maxMedium;
    }

    public long maxReplyMedium(int peer, int nargs) {
        checkLimitArgs(peer, nargs);
        return maxMedium;
    }

    /** Largest Long request payload to {@code peer} (-1: any peer) with {@code nargs} args. */
    public long maxRequestLong(int peer, int nargs) {
        checkLimitArgs(peer, nargs);
        return maxLong;
    }

    public long maxReplyLong(int peer, int nargs) {
        checkLimitArgs(peer, nargs);
        return maxLong;
    }

    /** Least upper bounds valid for every peer and arity ({@code gex_AM_LUB*}). */
    public long lubRequestMedium() {
        return maxMedium;
    }

    public long lubReplyMedium() {
        return maxMedium;
    }

    public long lubRequestLong() {
        return maxLong;
    }

    public long lubReplyLong() {
        return maxLong;
    }

    private void checkLimitArgs(int peer, int nargs) {
        if (peer != -1) {
            checkPeer(peer);
        }
        checkNargs(nargs);
    }

    /**
     * Frames dropped because they were malformed or named an unregistered handler, plus, where Long payloads are
     * reassembled, duplicate or malformed envelopes and remote-write tags that were not a Long payload of this job.
     */
    public long droppedFrames() {
        return droppedFrames.get() + (longEngine == null ? 0 : longEngine.dropped());
    }

    /**
     * Long messages waiting here for their other half (an envelope whose payload has not landed, or the reverse): 0
     * once traffic stops. Always 0 where Long payloads are not reassembled.
     */
    public int pendingLongReassemblies() {
        return longEngine == null ? 0 : longEngine.pendingReassemblies();
    }

    /**
     * Long credit slots this rank holds toward {@code peer}: requests whose payload went apart and whose reply has not
     * been handled yet. 0 once traffic stops, also after sends that failed or were refused. Always 0 where Long
     * payloads are not reassembled.
     */
    public int longCreditsInFlight(int peer) {
        checkPeer(peer);
        return longEngine == null ? 0 : longEngine.creditsInFlight(peer);
    }

    /** How a Long payload of {@code nbytes} travels to a peer: "copy", "packed", "putsyncsend" or "reassembly". */
    public String longProtocol(long nbytes) {
        return longEngine == null ? "copy" : longEngine.protocolFor(nbytes).setting();
    }

    void countDropped() {
        droppedFrames.incrementAndGet();
    }

    /** True if every AM with {@link Lc#GROUP} has completed locally. Does not poll. */
    public boolean nbiTest() {
        return client.nbiTest(org.gexj.Ec.AM);
    }

    /** Waits for local completion of every AM sent with {@link Lc#GROUP} ({@code gex_NBI_Wait(GEX_EC_AM)}). */
    public void nbiWait(int mask) {
        client.nbiWait(mask);
    }

    // ---------------------------------------------------------------------------------------------- NPAM

    /**
     * Negotiated-payload Medium request ({@code gex_AM_PrepareRequestMedium}). With {@code clientBuffer} null the
     * payload is written in place in the conduit's send buffer, and {@code lc} must be null.
     *
     * @return the prepared descriptor, or null if {@link Flags#IMMEDIATE} and resources were short
     */
    public SrcDesc prepareRequestMedium(int peer, MemorySegment clientBuffer, long leastPayload, long mostPayload,
                                        Lc lc, int flags, int nargs) {
        checkRequestContext();
        return prepare(null, peer, Conduit.REQUEST, AmFrameFlyweight.CATEGORY_MEDIUM, clientBuffer, leastPayload,
            mostPayload, 0, lc, flags, nargs);
    }

    /**
     * Negotiated-payload Long request into {@code peer}'s segment at {@code dest}. With {@code leastPayload} 0 a
     * {@code dest} outside the segment is not an error: the grant is 0 bytes, and a commit of 0 bytes passes it on.
     */
    public SrcDesc prepareRequestLong(int peer, MemorySegment clientBuffer, long leastPayload, long mostPayload,
                                      long dest, Lc lc, int flags, int nargs) {
        checkRequestContext();
        return prepare(null, peer, Conduit.REQUEST, AmFrameFlyweight.CATEGORY_LONG, clientBuffer, leastPayload,
            mostPayload, dest, lc, flags, nargs);
    }

    SrcDesc prepare(Token token, int peer, int channel, int category, MemorySegment clientBuffer, long least,
                    long most, long dest, Lc lc, int flags, int nargs) {
        checkPeer(peer);
        Flags.check(flags);
        checkNargs(nargs);
        final long max = category == AmFrameFlyweight.CATEGORY_MEDIUM ? maxMedium : maxLong;
        if (least < 0 || least > most) {
            throw new IllegalArgumentException("NPAM payload bounds [" + least + ", " + most
                + "] need 0 <= least <= most");
        }
        if (least > max) {
            throw new IllegalArgumentException("NPAM least payload " + least + " exceeds the maximum " + max);
        }
        if (clientBuffer == null && lc != null) {
            throw new IllegalArgumentException("NPAM without a client buffer takes lc = null, not " + lc);
        }
        if (clientBuffer != null) {
            checkLc(lc, channel);
            if (!clientBuffer.isNative()) {
                throw new IllegalArgumentException("NPAM client buffer must be off-heap (a native MemorySegment)");
            }
            if (clientBuffer.byteSize() < least) {
                throw new IllegalArgumentException("NPAM client buffer of " + clientBuffer.byteSize()
                    + " bytes is smaller than least payload " + least);
            }
        }
        long granted = Math.min(most, max);
        if (clientBuffer != null) {
            granted = Math.min(granted, clientBuffer.byteSize());
        }
        if (category == AmFrameFlyweight.CATEGORY_LONG) {
            // the dest of a commit of 0 bytes is not checked: with least 0, one outside the segment grants 0 bytes
            if (least > 0) {
                checkLongDest(peer, dest, least);
            }
            granted = Math.min(granted, roomAt(peer, dest));
            if (longEngine != null && (flags & Flags.IMMEDIATE) != 0) {
                // IMMEDIATE reserves the whole frame at prepare, which only a packed payload fits
                granted = Math.max(least, Math.min(granted, longEngine.packedMax()));
            }
        }
        final SrcDesc sd = srcDescs.get();
        if (sd.open) {
            throw new HandlerContextException("NPAM prepare while another prepare on this thread is not committed");
        }
        sd.claimed = false;
        sd.inPlace = false;
        if (category == AmFrameFlyweight.CATEGORY_MEDIUM && clientBuffer == null) {
            if (claimRoom(sd.claim, peer, channel, AmFrameFlyweight.frameLength(nargs, (int) granted), flags) == null) {
                return null;
            }
            final AtomicBuffer b = sd.claim.buffer();
            final int payloadAt = sd.claim.offset() + AmFrameFlyweight.payloadOffset(nargs);
            if (b.byteArray() != null) {
                sd.view.wrap(sd, b.byteArray(), b.wrapAdjustment() + payloadAt, (int) granted);
            } else {
                sd.view.wrap(sd, b.addressOffset() + payloadAt, (int) granted);
            }
            sd.claimed = true;
            sd.inPlace = true;
            sd.clientBuffer = null;
        } else if (clientBuffer == null) {
            sd.clientBuffer = sd.bounce(granted);
            sd.view.wrap(sd, sd.clientBuffer.address(), (int) granted);
        } else {
            sd.clientBuffer = clientBuffer;
            sd.view.wrap(sd, clientBuffer.address(), (int) granted);
        }
        if (!sd.inPlace && (flags & Flags.IMMEDIATE) != 0) {
            // reserve the whole frame now: IMMEDIATE fails here, at prepare, and the commit never waits
            if (claimRoom(sd.claim, peer, channel, AmFrameFlyweight.frameLength(nargs,
                inlinePayload(category) ? (int) granted : 0), flags) == null) {
                return null;
            }
            sd.claimed = true;
        }
        sd.lc = lc;
        sd.token = token;
        sd.peer = peer;
        sd.channel = channel;
        sd.category = category;
        sd.nargs = nargs;
        sd.flags = flags;
        sd.size = granted;
        sd.dest = dest;
        sd.thread = Thread.currentThread();
        sd.open = true;
        CORE.setNpam(client, NPAM_CONTEXT);
        return sd;
    }

    /**
     * The calling thread's claim. The last thread's is kept in a field, checked against the caller, so that a thread
     * that sends again skips the thread-local lookup; one reference write publishes claim and owner together.
     */
    Claim sendClaim() {
        final Claim last = lastClaim;
        if (last.owner() == Thread.currentThread()) {
            return last;
        }
        final Claim mine = sendClaims.get();
        lastClaim = mine;
        return mine;
    }

    int[] commitArgs(SrcDesc sd) {
        return sd.scratchArgs;
    }

    void commitPrepared(SrcDesc sd, int handler, long nbytes, int[] args, int nargs) {
        sd.checkOpen();
        if (nargs != sd.nargs) {
            throw new IllegalArgumentException("commit with " + nargs + " args; prepared with " + sd.nargs);
        }
        if (nbytes < 0 || nbytes > sd.size) {
            throw new IllegalArgumentException("commit of " + nbytes + " bytes outside [0, " + sd.size + "] prepared");
        }
        checkHandler(handler, sd.category, sd.channel == Conduit.REQUEST, nargs);
        sd.open = false;
        CORE.setNpam(client, null);
        final Claim c;
        if (sd.claimed) {
            c = sd.claim;
            final AtomicBuffer b = c.buffer();
            final int at = c.offset();
            final boolean inline = inlinePayload(sd.category);
            AmFrameFlyweight.encodeHeader(b, at, frameType(sd.category, sd.channel, inline), handler, nargs, rank,
                nbytes, sd.dest);
            AmFrameFlyweight.encodeCredit(b, at, creditOf(sd.token));
            if (!sd.inPlace && nbytes > 0) {
                if (inline) {
                    Memory.copy(sd.clientBuffer, 0, b, at + AmFrameFlyweight.payloadOffset(nargs), nbytes);
                } else {
                    PayloadCopy.copy(sd.clientBuffer, 0, peerSegment(sd.peer), sd.dest, nbytes);
                }
            }
        } else {
            c = begin(sd.claim, sd.token, sd.peer, sd.channel, sd.category, handler, nargs, 0, sd.clientBuffer, 0,
                nbytes, sd.dest, Lc.NOW);
        }
        if (sd.lc != null && sd.lc.isEvent()) {
            CORE.setLastEvent(sd.lc, Event.DONE); // the client buffer was copied: locally complete
        }
        sd.lc = null;
        for (int i = 0; i < nargs; i++) {
            AmFrameFlyweight.encodeArg(c.buffer(), c.offset(), i, args[i]);
        }
        commit(c);
        if (sd.token != null) {
            sd.token.replied = true;
        }
    }

    void cancelPrepared(SrcDesc sd) {
        sd.checkOpen();
        if (sd.claimed) {
            conduit.abort(sd.claim);
        }
        sd.open = false;
        CORE.setNpam(client, null);
    }

    // ---------------------------------------------------------------------------------------------- sending

    /*
     * The public sends (requestShort, tryRequestMedium, requestLong with an args array, and Token's replies) are
     * generated at build time by src/build/GenAmSends.java into AmRequestSends and TokenReplySends: each is one call
     * of request (here), reply or replyFromPayload (Token), which end in send and sendFromPayload below. The
     * fixed-arity forms pass their args as a0..a3 (unused ones 0) so that no varargs array is allocated per message.
     */

    @Override
    int request(int peer, int category, int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc,
                int flags, int nargs, int a0, int a1, int a2, int a3) {
        return send(null, peer, category, handler, src, srcOffset, nbytes, dest, lc, flags, nargs, a0, a1, a2, a3);
    }

    @Override
    int request(int peer, int category, int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc,
                int flags, int[] args, int nargs) {
        return send(null, peer, category, handler, src, srcOffset, nbytes, dest, lc, flags, args, nargs);
    }

    /**
     * Sends a request ({@code token} null) or {@code token}'s reply with the first {@code nargs} (at most 4) of
     * {@code a0..a3} as args.
     *
     * @return {@link #OK}, or {@link #BACK_PRESSURED} if IMMEDIATE and the path was full (nothing sent)
     */
    int send(Token token, int peer, int category, int handler, MemorySegment src, long srcOffset, long nbytes,
             long dest, Lc lc, int flags, int nargs, int a0, int a1, int a2, int a3) {
        checkSendContext(token);
        final Claim c = begin(sendClaim(), token, peer, token == null ? Conduit.REQUEST : Conduit.REPLY, category,
            handler, nargs, flags, src, srcOffset, nbytes, dest, lc);
        return c == null ? BACK_PRESSURED : putArgsAndCommit(c, token, nargs, a0, a1, a2, a3);
    }

    /** As the fixed-arity {@code send}, with {@code nargs} args taken from {@code args}. */
    int send(Token token, int peer, int category, int handler, MemorySegment src, long srcOffset, long nbytes,
             long dest, Lc lc, int flags, int[] args, int nargs) {
        checkSendContext(token);
        checkArgs(args, nargs);
        final Claim c = begin(sendClaim(), token, peer, token == null ? Conduit.REQUEST : Conduit.REPLY, category,
            handler, nargs, flags, src, srcOffset, nbytes, dest, lc);
        return c == null ? BACK_PRESSURED : putArgsAndCommit(c, token, args, nargs);
    }

    /**
     * Sends {@code token}'s Medium reply whose payload is {@code nbytes} of the delivered {@code src} from
     * {@code srcAt}, with the first {@code nargs} (at most 4) of {@code a0..a3} as args.
     */
    int sendFromPayload(Token token, int handler, Payload src, long srcAt, long nbytes, Lc lc, int flags, int nargs,
                        int a0, int a1, int a2, int a3) {
        checkReplyContext(token);
        final Claim c = beginMedium(sendClaim(), token, token.source, Conduit.REPLY, handler, nargs, flags, src, srcAt,
            nbytes, lc);
        return c == null ? BACK_PRESSURED : putArgsAndCommit(c, token, nargs, a0, a1, a2, a3);
    }

    /** As the fixed-arity {@code sendFromPayload}, with {@code nargs} args taken from {@code args}. */
    int sendFromPayload(Token token, int handler, Payload src, long srcAt, long nbytes, Lc lc, int flags, int[] args,
                        int nargs) {
        checkReplyContext(token);
        checkArgs(args, nargs);
        final Claim c = beginMedium(sendClaim(), token, token.source, Conduit.REPLY, handler, nargs, flags, src, srcAt,
            nbytes, lc);
        return c == null ? BACK_PRESSURED : putArgsAndCommit(c, token, args, nargs);
    }

    private void checkSendContext(Token token) {
        if (token == null) {
            checkRequestContext();
        } else {
            checkReplyContext(token);
        }
    }

    /** Writes the first {@code nargs} of {@code a0..a3} into the claimed frame and commits it. @return {@link #OK} */
    private int putArgsAndCommit(Claim c, Token token, int nargs, int a0, int a1, int a2, int a3) {
        final AtomicBuffer b = c.buffer();
        final int at = c.offset() + AmFrameFlyweight.ARGS_OFFSET;
        if (nargs > 0) {
            b.putInt(at, a0);
        }
        if (nargs > 1) {
            b.putInt(at + 4, a1);
        }
        if (nargs > 2) {
            b.putInt(at + 8, a2);
        }
        if (nargs > 3) {
            b.putInt(at + 12, a3);
        }
        return commitSend(c, token);
    }

    /** Writes {@code args[0..nargs)} into the claimed frame and commits it. @return {@link #OK} */
    private int putArgsAndCommit(Claim c, Token token, int[] args, int nargs) {
        final AtomicBuffer b = c.buffer();
        final int at = c.offset() + AmFrameFlyweight.ARGS_OFFSET;
        for (int i = 0; i < nargs; i++) {
            b.putInt(at + 4 * i, args[i]);
        }
        return commitSend(c, token);
    }

    private int commitSend(Claim c, Token token) {
        commit(c);
        if (token != null) {
            token.replied = true;
        }
        return OK;
    }

    void checkRequestContext() {
        CORE.checkOpenAndNotRestricted(client, "an AM request");
    }

    void checkReplyContext(Token token) {
        if (!token.active() || token.thread != Thread.currentThread()) {
            CORE.checkOpen(client); // a token kept past close: say that first
            throw new IllegalStateException("an AM token is valid only during its handler, on its thread");
        }
        if (!token.isRequest()) {
            throw new HandlerContextException("a reply handler may not send anything (handler "
                + token.handlerIndex() + " tried to reply)");
        }
        if (token.replied) {
            throw new HandlerContextException("a request handler may reply at most once (handler "
                + token.handlerIndex() + " already replied)");
        }
        if (CORE.npamContext(client) != null) {
            throw new HandlerContextException("no reply between an NPAM prepare and its commit");
        }
    }

    static void checkArgs(int[] args, int nargs) {
        checkNargs(nargs);
        if (nargs > 0 && (args == null || args.length < nargs)) {
            throw new IllegalArgumentException("args array of length " + (args == null ? 0 : args.length)
                + " holds fewer than nargs = " + nargs);
        }
    }

    static void checkNargs(int nargs) {
        if (nargs < 0 || nargs > MAX_ARGS) {
            throw new IllegalArgumentException("nargs " + nargs + " outside [0, " + MAX_ARGS + "]");
        }
    }

    void checkPeer(int peer) {
        if (peer < 0 || peer >= size) {
            throw new IllegalArgumentException("rank " + peer + " outside [0, " + size + ")");
        }
    }

    void checkHandler(int index, int category, boolean request, int nargs) {
        if (index < 1 || index > MAX_INDEX) {
            throw new IllegalArgumentException("handler index " + index + " outside [1, 255]");
        }
        final AmHandler h = handlers[index];
        if (h == null) {
            throw new IllegalArgumentException("handler index " + index + " is not registered");
        }
        if (h.category().ordinal() != category) {
            throw new IllegalArgumentException("handler " + index + " is " + h + "; cannot send it as "
                + Category.values()[category]);
        }
        if (request ? !h.direction().allowsRequest() : !h.direction().allowsReply()) {
            throw new IllegalArgumentException("handler " + index + " is " + h + "; cannot send it as a "
                + (request ? "request" : "reply"));
        }
        if (h.nargs() != nargs) {
            throw new IllegalArgumentException("handler " + index + " takes " + h.nargs() + " args; sent with "
                + nargs);
        }
    }

    private void checkLc(Lc lc, int channel) {
        if (lc == null) {
            throw new NullPointerException("lc is null; use Lc.NOW, Lc.GROUP or Lc.event()");
        }
        if (lc == Lc.DEFER) {
            throw new IllegalArgumentException("Lc.DEFER is not allowed for AM; use Lc.NOW, Lc.GROUP or Lc.event()");
        }
        if (lc == Lc.GROUP && channel == Conduit.REPLY) {
            throw new IllegalArgumentException("Lc.GROUP is not allowed for a reply; use Lc.NOW or Lc.event()");
        }
    }

    /** For 1 byte or more: a 0-byte Long writes nothing, and GASNet-EX passes its dest unchecked. */
    private void checkLongDest(int peer, long dest, long nbytes) {
        client.segment().checkRemote(peer, dest, nbytes);
    }

    /** Bytes of {@code peer}'s segment from {@code dest} on: 0 where {@code dest} is outside it or none is attached. */
    private long roomAt(int peer, long dest) {
        if (!client.hasSegment()) {
            return 0;
        }
        final long size = client.segment().size(peer);
        return dest >= 0 && dest <= size ? size - dest : 0;
    }

    /** Medium payloads travel in the frame; Long ones too unless the conduit cross-maps segments. */
    private boolean inlinePayload(int category) {
        return category == AmFrameFlyweight.CATEGORY_MEDIUM
            || (category == AmFrameFlyweight.CATEGORY_LONG && !capabilities.crossMapped());
    }

    static int frameType(int category, int channel, boolean inline) {
        return category | (channel == Conduit.REQUEST ? AmFrameFlyweight.TYPE_REQUEST : 0)
            | (category == AmFrameFlyweight.CATEGORY_LONG && inline ? AmFrameFlyweight.TYPE_INLINE : 0);
    }

    /**
     * Validates, claims space (waiting unless IMMEDIATE), writes the header and the payload; the caller writes the
     * args and commits.
     *
     * @return the frame's claim ({@code claim}, or the Long engine's own for a payload that travels apart), or null if
     *         IMMEDIATE and the path was full
     */
    Claim begin(Claim claim, Token token, int peer, int channel, int category, int handler, int nargs, int flags,
                MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc) {
        checkSend(peer, channel, category, handler, nargs, flags, nbytes, lc);
        if (category != AmFrameFlyweight.CATEGORY_SHORT) {
            if (nbytes > 0) {
                if (src == null) {
                    throw new NullPointerException("src is null with " + nbytes + " bytes to send");
                }
                if (srcOffset < 0 || srcOffset > src.byteSize() - nbytes) {
                    throw new IllegalArgumentException("source range [" + srcOffset + ", " + (srcOffset + nbytes)
                        + ") outside the source segment [0, " + src.byteSize() + ")");
                }
            }
            if (category == AmFrameFlyweight.CATEGORY_LONG && nbytes > 0) {
                checkLongDest(peer, dest, nbytes);
            }
        }
        if (category == AmFrameFlyweight.CATEGORY_LONG && longEngine != null && longEngine.apart(nbytes)) {
            return longEngine.beginApart(token, peer, channel, handler, nargs, flags, src, srcOffset, nbytes, dest, lc);
        }
        final boolean inline = inlinePayload(category);
        if (claimFrame(claim, token, peer, channel, category, handler, nargs, flags, inline, nbytes, dest) == null) {
            return null;
        }
        if (nbytes > 0) {
            if (inline) {
                final int payloadAt = claim.offset() + AmFrameFlyweight.payloadOffset(nargs);
                Memory.copy(src, srcOffset, claim.buffer(), payloadAt, nbytes);
            } else {
                PayloadCopy.copy(src, srcOffset, peerSegment(peer), dest, nbytes);
            }
        }
        completeLocally(lc);
        return claim;
    }

    /**
     * As {@link #begin} for a Medium whose payload is {@code nbytes} of a delivered {@code src} from {@code srcAt},
     * copied from where it was delivered into the claimed frame.
     */
    Claim beginMedium(Claim claim, Token token, int peer, int channel, int handler, int nargs, int flags, Payload src,
                      long srcAt, long nbytes, Lc lc) {
        checkSend(peer, channel, AmFrameFlyweight.CATEGORY_MEDIUM, handler, nargs, flags, nbytes, lc);
        Objects.requireNonNull(src, "src");
        src.checkSource(srcAt, nbytes);
        if (claimFrame(claim, token, peer, channel, AmFrameFlyweight.CATEGORY_MEDIUM, handler, nargs, flags, true,
            nbytes, 0) == null) {
            return null;
        }
        src.copyTo(srcAt, claim.buffer(), claim.offset() + AmFrameFlyweight.payloadOffset(nargs), (int) nbytes);
        completeLocally(lc);
        return claim;
    }

    /** What every send checks before claiming: peer, flags, handler and, with a payload, its lc and length. */
    private void checkSend(int peer, int channel, int category, int handler, int nargs, int flags, long nbytes, Lc lc) {
        checkPeer(peer);
        if (flags != 0) {
            Flags.check(flags);
        }
        checkHandler(handler, category, channel == Conduit.REQUEST, nargs);
        if (category != AmFrameFlyweight.CATEGORY_SHORT) {
            checkLc(lc, channel);
            final long max = category == AmFrameFlyweight.CATEGORY_MEDIUM ? maxMedium : maxLong;
            if (nbytes < 0 || nbytes > max) {
                throw new IllegalArgumentException("payload of " + nbytes + " bytes outside [0, " + max + "]");
            }
        }
    }

    /** Claims the frame (waiting unless IMMEDIATE) and writes its header. @return {@code claim}, or null */
    private Claim claimFrame(Claim claim, Token token, int peer, int channel, int category, int handler, int nargs,
                             int flags, boolean inline, long nbytes, long dest) {
        if (claimRoom(claim, peer, channel, AmFrameFlyweight.frameLength(nargs, inline ? (int) nbytes : 0), flags)
            == null) {
            return null;
        }
        AmFrameFlyweight.encodeHeader(claim.buffer(), claim.offset(), frameType(category, channel, inline), handler,
            nargs, rank, nbytes, dest);
        if (token != null) {
            AmFrameFlyweight.encodeCredit(claim.buffer(), claim.offset(), token.creditSlot);
        }
        return claim;
    }

    /** Payloads are copied out of their source before a send returns: an event lc is complete at once. */
    private static void completeLocally(Lc lc) {
        if (lc != null && lc.isEvent()) {
            CORE.setLastEvent(lc, Event.DONE);
        }
    }

    /** The credit slot a reply carries back: its request's, or -1. */
    static int creditOf(Token token) {
        return token == null ? -1 : token.creditSlot;
    }

    /** Sends a filled frame, counted by what its header says. */
    void commit(Claim c) {
        stats.sent(c.buffer(), c.offset());
        try {
            conduit.commit(c);
        } catch (IllegalStateException e) {
            throw CORE.closedOr(client, e); // another thread closed the client: named, not its conduit
        }
    }

    /** @return {@code claim}, filled, or null if IMMEDIATE and the path was full */
    Claim claimRoom(Claim claim, int peer, int channel, int length, int flags) {
        if (claimOnce(claim, peer, channel, length) == Conduit.OK) {
            return claim;
        }
        if ((flags & Flags.IMMEDIATE) != 0) {
            return null;
        }
        return claimSlowly(claim, peer, channel, length);
    }

    private Claim claimSlowly(Claim claim, int peer, int channel, int length) {
        stats.stalled();
        CORE.resetBackoff(client);
        final long start = System.nanoTime();
        while (true) {
            CORE.progressWhileBlocked(client);
            if (claimOnce(claim, peer, channel, length) == Conduit.OK) {
                return claim;
            }
            if (System.nanoTime() - start > backPressureTimeoutNs) {
                throw new GexTimeoutException("rank " + rank + ": the AM " + (channel == Conduit.REQUEST ? "request" : "reply")
                    + " path to rank " + peer + " stayed full for " + backPressureTimeoutNs / 1_000_000_000L
                    + " s (GEX_BACKPRESSURE_TIMEOUT); is rank " + peer + " polling?");
            }
        }
    }

    private int claimOnce(Claim claim, int peer, int channel, int length) {
        try {
            return conduit.claim(claim, peer, channel, length);
        } catch (IllegalStateException e) {
            throw CORE.closedOr(client, e); // another thread closed the client: named, not its conduit
        }
    }

    /** The peer's cross-mapped segment; only called for a Long payload, so after attachSegment. */
    MemorySegment peerSegment(int peer) {
        MemorySegment[] segments = peerSegments;
        if (segments == null) {
            segments = new MemorySegment[size];
            for (int r = 0; r < size; r++) {
                segments[r] = conduit.peerSegment(r);
            }
            peerSegments = segments;
        }
        return segments[peer];
    }

    MemorySegment localSegment() {
        return client.hasSegment() ? client.segment().memory() : null;
    }
}
