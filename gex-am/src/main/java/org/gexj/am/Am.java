package org.gexj.am;

import org.gexj.Client;
import org.gexj.Flags;
import org.gexj.GexException;
import org.gexj.GexTimeoutException;
import org.gexj.HandlerContextException;
import org.gexj.Lc;
import org.gexj.am.internal.AmAccess;
import org.gexj.am.internal.RemoteWriteSink;
import org.gexj.am.wire.AmFrameFlyweight;
import org.gexj.internal.CoreAccess;
import org.gexj.spi.Capabilities;
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
 * send nothing; over smp a request of 16 KiB or more without IMMEDIATE also polls once before it sends, as
 * GASNet-EX's requests poll on entry, so its caller may run handlers. A path that stays full longer than
 * {@code GEX_BACKPRESSURE_TIMEOUT} seconds ends in {@link GexTimeoutException}.
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

            @Override
            public void setRemoteWriteSink(Am am, RemoteWriteSink sink) {
                am.dispatcher.setOtherWrites(sink);
            }

            @Override
            public long payloadAddress(Payload payload) {
                return payload.nativeAddress();
            }

            @Override
            public long preparedAddress(SrcDesc prepared) {
                return prepared.view.nativeAddress();
            }

            @Override
            public TeamAm onTeam(Am am, int[] jobRanks) {
                return new TeamAm(am, jobRanks);
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

    final Client client;
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
    /** Long requests whose target pulls the payload from registered memory; null where the conduit cannot. */
    private final AmRendezvous rendezvous;
    /** Runs the handlers of arriving frames and routes remote writes. */
    private final AmDispatcher dispatcher;
    /** Every send, request or reply, ends here. */
    final AmSender sender;
    /** Negotiated-payload prepare, commit and cancel. */
    final AmNpam npam;
    private final AtomicLong droppedFrames = new AtomicLong();

    private Am(Client client) {
        this.client = client;
        this.stats = new AmStats(client.config().getBoolean("GEX_STATS", false));
        final Conduit conduit = CORE.conduit(client);
        final Capabilities capabilities = conduit.capabilities();
        this.size = client.size();
        // less the largest header (a Long's, 16 args): the limits stay what they were when every header had a dest
        final long frameLimit = capabilities.maxFrameLength()
            - AmFrameFlyweight.payloadOffset(AmFrameFlyweight.CATEGORY_LONG, MAX_ARGS);
        // the conduit's Medium (udp: one datagram's worth) is the default; a user may ask for up to a whole frame
        final long conduitMedium = Math.min(capabilities.maxMediumRequest(), capabilities.maxMediumReply());
        this.maxMedium = client.config().getLong("GEX_AM_MAX_MEDIUM",
            Math.max(512, Math.min(Math.min(65536, frameLimit), conduitMedium)), 512, frameLimit);
        final long backPressureTimeoutNs =
            client.config().getLong("GEX_BACKPRESSURE_TIMEOUT", 60, 1, 86_400) * 1_000_000_000L;
        final AmClaims claims = new AmClaims(client, conduit, stats, backPressureTimeoutNs);
        // a packed Long carries its payload in the frame: up to the conduit's frame (udp fragments frames of any size)
        this.longEngine = capabilities.crossMapped() ? null
            : new AmLongEngine(claims, client, conduit, capabilities, frameLimit, backPressureTimeoutNs);
        // the frame's length field bounds every Long; a conduit may bound it further
        final long conduitLong = Math.min(AmFrameFlyweight.MAX_PAYLOAD,
            Math.min(capabilities.maxLongRequest(), capabilities.maxLongReply()));
        this.maxLong = longEngine == null ? conduitLong : longEngine.maxLong(conduitLong);
        this.rendezvous = AmRendezvous.open(client, conduit, claims, backPressureTimeoutNs);
        this.sender = new AmSender(client, conduit, claims, longEngine, rendezvous, handlers, maxMedium, maxLong);
        this.npam = new AmNpam(sender);
        registerSystem(CREDIT_RETURN, AmHandler.shortReply(0, (token, args) -> { }).named("credit-return"));
        registerSystem(AmRendezvous.ANSWER, AmHandler.shortReply(2, this::onRendezvousAnswer).named("rendezvous"));
        if (rendezvous != null) {
            CORE.addStats(client, () -> {
                final java.util.Map<String, Long> m = new java.util.LinkedHashMap<>();
                rendezvous.counters(m);
                return m;
            });
        }
        this.dispatcher = new AmDispatcher(this, client, longEngine, rendezvous);
        CORE.setListener(client, dispatcher);
        claims.loopBackTo(dispatcher, AmFrameFlyweight.frameLength(AmFrameFlyweight.CATEGORY_MEDIUM, MAX_ARGS,
            (int) maxMedium));
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
            throw AmChecks.noFreeIndex();
        }
        AmChecks.clientIndex(index);
        return put(index, handler);
    }

    /** Registers a handler of another GEX/J module at a library index in [1, 127] ({@link AmAccess}). */
    synchronized int registerSystem(int index, AmHandler handler) {
        Objects.requireNonNull(handler, "handler");
        AmChecks.systemIndex(index);
        return put(index, handler);
    }

    private int put(int index, AmHandler handler) {
        AmChecks.unregistered(handlers, index);
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
            AmChecks.peer(peer, size);
        }
        AmChecks.nargs(nargs);
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
        AmChecks.peer(peer, size);
        return longEngine == null ? 0 : longEngine.creditsInFlight(peer);
    }

    /**
     * How a Long payload of {@code nbytes} travels to a peer: "copy", "packed", "putsyncsend" or "reassembly". A
     * request from registered memory may go as a rendezvous instead ({@code GEX_AMLONG_RENDEZVOUS_MIN}, where the
     * conduit lets peers pull it: smp with Cross Memory Attach).
     */
    public String longProtocol(long nbytes) {
        return longEngine == null ? "copy" : longEngine.protocolFor(nbytes).setting();
    }

    private void onRendezvousAnswer(Token token, Args args) {
        if (rendezvous == null) {
            throw new GexException("rank " + client.rank() + ": rank " + token.source + " answered a rendezvous AM"
                + " Long, which this rank never sends");
        }
        rendezvous.onAnswer(token, args);
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
        AmChecks.requestContext(client);
        return npam.prepare(null, peer, Conduit.REQUEST, AmFrameFlyweight.CATEGORY_MEDIUM, clientBuffer, leastPayload,
            mostPayload, 0, lc, flags, nargs);
    }

    /**
     * Negotiated-payload Long request into {@code peer}'s segment at {@code dest}. With {@code leastPayload} 0 a
     * {@code dest} outside the segment is not an error: the grant is 0 bytes, and a commit of 0 bytes passes it on.
     */
    public SrcDesc prepareRequestLong(int peer, MemorySegment clientBuffer, long leastPayload, long mostPayload,
                                      long dest, Lc lc, int flags, int nargs) {
        AmChecks.requestContext(client);
        return npam.prepare(null, peer, Conduit.REQUEST, AmFrameFlyweight.CATEGORY_LONG, clientBuffer, leastPayload,
            mostPayload, dest, lc, flags, nargs);
    }

    // ---------------------------------------------------------------------------------------------- sending

    /*
     * The public sends (requestShort, tryRequestMedium, requestLong with an args array, and Token's replies) are
     * generated at build time by src/build/GenAmSends.java into AmRequestSends and TokenReplySends: each is one call
     * of request (here), reply or replyFromPayload (Token), which end in AmSender's send and sendFromPayload. The
     * fixed-arity forms pass their args as a0..a3 (unused ones 0) so that no varargs array is allocated per message.
     */

    @Override
    int request(int peer, int category, int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc,
                int flags, int nargs, int a0, int a1, int a2, int a3) {
        return sender.send(null, peer, category, handler, src, srcOffset, nbytes, dest, lc, flags, nargs, a0, a1, a2,
            a3);
    }

    @Override
    int request(int peer, int category, int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc,
                int flags, int[] args, int nargs) {
        return sender.send(null, peer, category, handler, src, srcOffset, nbytes, dest, lc, flags, args, nargs);
    }

    MemorySegment localSegment() {
        return client.hasSegment() ? client.segment().memory() : null;
    }
}
