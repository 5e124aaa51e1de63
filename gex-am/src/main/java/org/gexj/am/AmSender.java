package org.gexj.am;

import org.agrona.concurrent.AtomicBuffer;
import org.gexj.Client;
import org.gexj.Event;
import org.gexj.Flags;
import org.gexj.Lc;
import org.gexj.am.wire.AmFrameFlyweight;
import org.gexj.internal.CoreAccess;
import org.gexj.internal.PayloadCopy;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Sends Short, Medium and Long requests and replies: checks the send ({@link AmChecks}), claims its frame
 * ({@link AmClaims}), writes header, payload and args into it and commits it. A Long payload that travels apart
 * from its frame is handed to the {@link AmLongEngine}. Every public send of {@link Am} and {@link Token} ends here.
 *
 * <p>A frame to this rank is delivered inside the send when it can be ({@link AmClaims#claimLoopback}): its handler
 * runs before the send returns, and an exception it throws comes out of the send.
 *
 * <p>Thread contract: any thread may send at the same time; each writes only the claim it was given. The handler
 * table is read without a lock, as registration happens before peers send. The data path allocates nothing; its
 * methods are small and final so that the JIT inlines them.
 */
final class AmSender {
    private static final CoreAccess CORE = CoreAccess.get();

    // read by AmNpam too, which sends through this
    final Client client;
    private final Conduit conduit;
    private final Capabilities capabilities;
    final AmClaims claims;
    /** How Long payloads travel on conduits that do not cross-map segments; null on those that do. */
    final AmLongEngine longEngine;
    /** Long requests from registered memory that the target pulls ({@code GEX_AMLONG_RENDEZVOUS_MIN}), or null. */
    final AmRendezvous rendezvous;
    /** The least payload a Long request may travel as rendezvous: {@code Long.MAX_VALUE} where none does. */
    private final long rendezvousMin;
    final AmHandler[] handlers;
    final int rank;
    final int size;
    final long maxMedium;
    final long maxLong;
    private volatile MemorySegment[] peerSegments;

    AmSender(Client client, Conduit conduit, AmClaims claims, AmLongEngine longEngine, AmRendezvous rendezvous,
             AmHandler[] handlers, long maxMedium, long maxLong) {
        this.client = client;
        this.conduit = conduit;
        this.capabilities = conduit.capabilities();
        this.claims = claims;
        this.longEngine = longEngine;
        this.rendezvous = rendezvous;
        this.rendezvousMin = rendezvous == null ? Long.MAX_VALUE : rendezvous.min();
        this.handlers = handlers;
        this.rank = client.rank();
        this.size = client.size();
        this.maxMedium = maxMedium;
        this.maxLong = maxLong;
    }

    /**
     * Sends a request ({@code token} null) or {@code token}'s reply with the first {@code nargs} (at most 4) of
     * {@code a0..a3} as args.
     *
     * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} if IMMEDIATE and the path was full (nothing sent)
     */
    int send(Token token, int peer, int category, int handler, MemorySegment src, long srcOffset, long nbytes,
             long dest, Lc lc, int flags, int nargs, int a0, int a1, int a2, int a3) {
        AmChecks.sendContext(client, token);
        final Claim mine = claims.sendClaim();
        final int channel = token == null ? Conduit.REQUEST : Conduit.REPLY;
        final Claim c = begin(mine, token, peer, channel, category, handler, nargs, flags, src, srcOffset, nbytes, dest,
            lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        putArgsAndCommit(c, token, nargs, a0, a1, a2, a3);
        return afterCommit(c, mine, channel);
    }

    /** As the fixed-arity {@code send}, with {@code nargs} args taken from {@code args}. */
    int send(Token token, int peer, int category, int handler, MemorySegment src, long srcOffset, long nbytes,
             long dest, Lc lc, int flags, int[] args, int nargs) {
        AmChecks.sendContext(client, token);
        AmChecks.args(args, nargs);
        final Claim mine = claims.sendClaim();
        final int channel = token == null ? Conduit.REQUEST : Conduit.REPLY;
        final Claim c = begin(mine, token, peer, channel, category, handler, nargs, flags, src, srcOffset, nbytes, dest,
            lc);
        if (c == null) {
            return Am.BACK_PRESSURED;
        }
        putArgsAndCommit(c, token, args, nargs);
        return afterCommit(c, mine, channel);
    }

    /**
     * A claim that is not the sender's own came from the rendezvous or the Long engine (payload apart), which may still
     * have to wait for the payload's local completion now that the envelope is on its way. @return {@link Am#OK}
     */
    private int afterCommit(Claim c, Claim mine, int channel) {
        if (c != mine) {
            afterApart(c, channel);
        }
        return Am.OK;
    }

    /** After the commit of a claim {@link #begin} took from the rendezvous or the Long engine. */
    void afterApart(Claim c, int channel) {
        if (rendezvous != null && rendezvous.owns(c)) {
            rendezvous.afterCommit();
        } else {
            longEngine.afterCommit(channel);
        }
    }

    /**
     * Sends {@code token}'s Medium reply whose payload is {@code nbytes} of the delivered {@code src} from
     * {@code srcAt}, with the first {@code nargs} (at most 4) of {@code a0..a3} as args.
     */
    int sendFromPayload(Token token, int handler, Payload src, long srcAt, long nbytes, Lc lc, int flags, int nargs,
                        int a0, int a1, int a2, int a3) {
        AmChecks.replyContext(client, token);
        final Claim c = beginMedium(claims.sendClaim(), token, token.source, Conduit.REPLY, handler, nargs, flags,
            src, srcAt, nbytes, lc);
        return c == null ? Am.BACK_PRESSURED : putArgsAndCommit(c, token, nargs, a0, a1, a2, a3);
    }

    /** As the fixed-arity {@code sendFromPayload}, with {@code nargs} args taken from {@code args}. */
    int sendFromPayload(Token token, int handler, Payload src, long srcAt, long nbytes, Lc lc, int flags, int[] args,
                        int nargs) {
        AmChecks.replyContext(client, token);
        AmChecks.args(args, nargs);
        final Claim c = beginMedium(claims.sendClaim(), token, token.source, Conduit.REPLY, handler, nargs, flags,
            src, srcAt, nbytes, lc);
        return c == null ? Am.BACK_PRESSURED : putArgsAndCommit(c, token, args, nargs);
    }

    /** Writes the first {@code nargs} of {@code a0..a3} into the claimed frame and commits it. @return {@link Am#OK} */
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

    /** Writes {@code args[0..nargs)} into the claimed frame and commits it. @return {@link Am#OK} */
    private int putArgsAndCommit(Claim c, Token token, int[] args, int nargs) {
        final AtomicBuffer b = c.buffer();
        final int at = c.offset() + AmFrameFlyweight.ARGS_OFFSET;
        for (int i = 0; i < nargs; i++) {
            b.putInt(at + 4 * i, args[i]);
        }
        return commitSend(c, token);
    }

    private int commitSend(Claim c, Token token) {
        claims.commit(c);
        if (token != null) {
            token.replied = true;
        }
        return Am.OK;
    }

    /** Medium payloads travel in the frame; Long ones too unless the conduit cross-maps segments. */
    boolean inlinePayload(int category) {
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
                AmChecks.source(src, srcOffset, nbytes);
            }
            if (category == AmFrameFlyweight.CATEGORY_LONG && nbytes > 0) {
                AmChecks.longDest(client, peer, dest, nbytes);
            }
        }
        if (category == AmFrameFlyweight.CATEGORY_LONG && nbytes >= rendezvousMin && token == null) {
            final int handle = rendezvous.handleFor(peer, src, srcOffset, nbytes);
            final long offset = handle == 0 ? -1 : rendezvous.offsetIn(handle, src.address() + srcOffset);
            if (offset >= 0) {
                return rendezvous.begin(peer, handler, nargs, flags, handle, offset, nbytes, dest, lc);
            }
        }
        if (category == AmFrameFlyweight.CATEGORY_LONG && longEngine != null && longEngine.apart(nbytes)) {
            return longEngine.beginApart(token, peer, channel, handler, nargs, flags, src, srcOffset, nbytes, dest, lc);
        }
        final boolean inline = inlinePayload(category);
        if (claimFrame(claim, token, peer, channel, category, handler, nargs, flags, inline, nbytes, dest) == null) {
            return null;
        }
        try {
            if (nbytes > 0) {
                if (inline) {
                    final int payloadAt = claim.offset() + AmFrameFlyweight.payloadOffset(category, nargs);
                    Memory.copy(src, srcOffset, claim.buffer(), payloadAt, nbytes);
                } else {
                    PayloadCopy.copy(src, srcOffset, peerSegment(peer), dest, nbytes);
                }
            }
        } catch (RuntimeException | Error e) {
            claims.abort(claim); // e.g. a source whose arena another thread closed: the claim must not stay held
            throw e;
        }
        completeLocally(lc);
        return claim;
    }

    /**
     * As {@link #begin} for a Medium whose payload is {@code nbytes} of a delivered {@code src} from {@code srcAt},
     * copied from where it was delivered into the claimed frame.
     */
    private Claim beginMedium(Claim claim, Token token, int peer, int channel, int handler, int nargs, int flags,
                              Payload src, long srcAt, long nbytes, Lc lc) {
        checkSend(peer, channel, AmFrameFlyweight.CATEGORY_MEDIUM, handler, nargs, flags, nbytes, lc);
        Objects.requireNonNull(src, "src");
        src.checkSource(srcAt, nbytes);
        if (claimFrame(claim, token, peer, channel, AmFrameFlyweight.CATEGORY_MEDIUM, handler, nargs, flags, true,
            nbytes, 0) == null) {
            return null;
        }
        try {
            src.copyTo(srcAt, claim.buffer(), claim.offset()
                + AmFrameFlyweight.payloadOffset(AmFrameFlyweight.CATEGORY_MEDIUM, nargs), (int) nbytes);
        } catch (RuntimeException | Error e) {
            claims.abort(claim);
            throw e;
        }
        completeLocally(lc);
        return claim;
    }

    /** What every send checks before claiming: peer, flags, handler and, with a payload, its lc and length. */
    private void checkSend(int peer, int channel, int category, int handler, int nargs, int flags, long nbytes, Lc lc) {
        AmChecks.peer(peer, size);
        if (flags != 0) {
            Flags.check(flags);
        }
        AmChecks.handler(handlers, handler, category, channel == Conduit.REQUEST, nargs);
        if (category != AmFrameFlyweight.CATEGORY_SHORT) {
            AmChecks.lc(lc, channel);
            AmChecks.payload(nbytes, category == AmFrameFlyweight.CATEGORY_MEDIUM ? maxMedium : maxLong);
        }
    }

    /** Claims the frame (waiting unless IMMEDIATE) and writes its header. @return {@code claim}, or null */
    private Claim claimFrame(Claim claim, Token token, int peer, int channel, int category, int handler, int nargs,
                             int flags, boolean inline, long nbytes, long dest) {
        final int length = AmFrameFlyweight.frameLength(category, nargs, inline ? (int) nbytes : 0);
        if (!(peer == rank && claims.claimLoopback(claim, channel, length))
            && (inline || nbytes == 0 ? claims.claimRoom(claim, peer, channel, length, flags)
                : claims.claimEnvelope(claim, peer, channel, length, flags)) == null) {
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
    static void completeLocally(Lc lc) {
        if (lc != null && lc.isEvent()) {
            CORE.setLastEvent(lc, Event.DONE);
        }
    }

    /** The credit slot a reply carries back: its request's, or -1. */
    static int creditOf(Token token) {
        return token == null ? -1 : token.creditSlot;
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
}
