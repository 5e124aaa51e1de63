package org.gexj.am;

import org.agrona.concurrent.AtomicBuffer;
import org.gexj.Client;
import org.gexj.Event;
import org.gexj.Flags;
import org.gexj.HandlerContextException;
import org.gexj.Lc;
import org.gexj.am.wire.AmFrameFlyweight;
import org.gexj.internal.CoreAccess;
import org.gexj.internal.PayloadCopy;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;

import java.lang.foreign.MemorySegment;

/**
 * Negotiated-payload AMs ({@code gex_AM_Prepare*} / {@code gex_AM_Commit*}): a prepare grants a payload size
 * between the caller's least and most and hands out the thread's {@link SrcDesc}; its commit sends the frame, its
 * cancel gives it up. An in-place Medium, and any form with {@link Flags#IMMEDIATE}, claims its frame at prepare, so
 * that the commit never waits; the others claim it at commit, through {@link AmSender#begin}.
 *
 * <p>Thread contract: each thread has its own {@link SrcDesc}, and a prepare and its commit or cancel run on the
 * same thread, which in between is in a restricted context (no poll, wait or other send). Threads do not share
 * anything here but the {@link AmSender} and {@link AmClaims}, which any thread may use.
 */
final class AmNpam {
    private static final CoreAccess CORE = CoreAccess.get();
    /** The restricted context between NPAM prepare and commit; compared by identity. */
    private static final String NPAM_CONTEXT = "an NPAM prepare/commit pair";

    private final Client client;
    private final AmSender sender;
    private final AmClaims claims;
    private final ThreadLocal<SrcDesc> srcDescs = ThreadLocal.withInitial(() -> new SrcDesc(this));

    AmNpam(AmSender sender) {
        this.client = sender.client;
        this.sender = sender;
        this.claims = sender.claims;
    }

    /**
     * Prepares a request ({@code token} null) or {@code token}'s reply; the caller has checked its context.
     *
     * @return the thread's descriptor, or null if {@link Flags#IMMEDIATE} and resources were short
     */
    SrcDesc prepare(Token token, int peer, int channel, int category, MemorySegment clientBuffer, long least,
                    long most, long dest, Lc lc, int flags, int nargs) {
        AmChecks.peer(peer, sender.size);
        Flags.check(flags);
        AmChecks.nargs(nargs);
        final long max = category == AmFrameFlyweight.CATEGORY_MEDIUM ? sender.maxMedium : sender.maxLong;
        AmChecks.prepare(least, most, max, clientBuffer, lc, channel);
        long granted = Math.min(most, max);
        if (clientBuffer != null) {
            granted = Math.min(granted, clientBuffer.byteSize());
        }
        if (category == AmFrameFlyweight.CATEGORY_LONG) {
            // the dest of a commit of 0 bytes is not checked: with least 0, one outside the segment grants 0 bytes
            if (least > 0) {
                AmChecks.longDest(client, peer, dest, least);
            }
            granted = Math.min(granted, roomAt(peer, dest));
            if (sender.longEngine != null && (flags & Flags.IMMEDIATE) != 0) {
                // IMMEDIATE reserves the whole frame at prepare, which only a packed payload fits
                granted = Math.max(least, Math.min(granted, sender.longEngine.packedMax()));
            }
        }
        final SrcDesc sd = srcDescs.get();
        if (sd.open) {
            throw new HandlerContextException("NPAM prepare while another prepare on this thread is not committed");
        }
        sd.claimed = false;
        sd.inPlace = false;
        if (category == AmFrameFlyweight.CATEGORY_MEDIUM && clientBuffer == null) {
            // to this rank, written in the loopback buffer and delivered at commit, as AmSender's sends are
            final int length = AmFrameFlyweight.frameLength(category, nargs, (int) granted);
            if (!(peer == sender.rank && claims.claimLoopback(sd.claim, channel, length))
                && claims.claimRoom(sd.claim, peer, channel, length, flags) == null) {
                return null;
            }
            final AtomicBuffer b = sd.claim.buffer();
            final int payloadAt = sd.claim.offset() + AmFrameFlyweight.payloadOffset(category, nargs);
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
            if (claims.claimRoom(sd.claim, peer, channel, AmFrameFlyweight.frameLength(category, nargs,
                sender.inlinePayload(category) ? (int) granted : 0), flags) == null) {
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

    /** Bytes of {@code peer}'s segment from {@code dest} on: 0 where {@code dest} is outside it or none is attached. */
    private long roomAt(int peer, long dest) {
        if (!client.hasSegment()) {
            return 0;
        }
        final long size = client.segment().size(peer);
        return dest >= 0 && dest <= size ? size - dest : 0;
    }

    void commit(SrcDesc sd, int handler, long nbytes, int[] args, int nargs) {
        sd.checkOpen();
        AmChecks.commit(sd, nbytes, nargs);
        AmChecks.handler(sender.handlers, handler, sd.category, sd.channel == Conduit.REQUEST, nargs);
        sd.open = false;
        CORE.setNpam(client, null);
        final Claim c;
        if (sd.claimed) {
            c = sd.claim;
            final AtomicBuffer b = c.buffer();
            final int at = c.offset();
            final boolean inline = sender.inlinePayload(sd.category);
            AmFrameFlyweight.encodeHeader(b, at, AmSender.frameType(sd.category, sd.channel, inline), handler, nargs,
                sender.rank, nbytes, sd.dest);
            AmFrameFlyweight.encodeCredit(b, at, AmSender.creditOf(sd.token));
            if (!sd.inPlace && nbytes > 0) {
                if (inline) {
                    Memory.copy(sd.clientBuffer, 0, b, at + AmFrameFlyweight.payloadOffset(sd.category, nargs), nbytes);
                } else {
                    PayloadCopy.copy(sd.clientBuffer, 0, sender.peerSegment(sd.peer), sd.dest, nbytes);
                }
            }
        } else {
            c = sender.begin(sd.claim, sd.token, sd.peer, sd.channel, sd.category, handler, nargs, 0, sd.clientBuffer,
                0, nbytes, sd.dest, Lc.NOW);
        }
        if (sd.lc != null && sd.lc.isEvent()) {
            CORE.setLastEvent(sd.lc, Event.DONE); // the client buffer was copied: locally complete
        }
        sd.lc = null;
        for (int i = 0; i < nargs; i++) {
            AmFrameFlyweight.encodeArg(c.buffer(), c.offset(), i, args[i]);
        }
        claims.commit(c);
        if (c != sd.claim) {
            sender.afterApart(c, sd.channel); // a reassembled or pulled payload's local completion, envelope sent
        }
        if (sd.token != null) {
            sd.token.replied = true;
        }
    }

    void cancel(SrcDesc sd) {
        sd.checkOpen();
        if (sd.claimed) {
            claims.abort(sd.claim);
        }
        sd.open = false;
        CORE.setNpam(client, null);
    }
}
