package org.gexj.am;

import org.gexj.Client;
import org.gexj.HandlerContextException;
import org.gexj.Lc;
import org.gexj.am.wire.AmFrameFlyweight;
import org.gexj.internal.CoreAccess;
import org.gexj.spi.Conduit;

import java.lang.foreign.MemorySegment;

/**
 * The checks of bad input to {@link Am}, {@link Token} and {@link SrcDesc}: each throws before anything is claimed or
 * sent, with a message that names the bad value and the allowed range ({@link IllegalArgumentException}), the null
 * parameter ({@link NullPointerException}) or the broken context ({@link HandlerContextException},
 * {@link IllegalStateException}).
 *
 * <p>Thread contract: stateless; every method may be called from any thread. The state a check reads (the rank
 * count, the handler table, the limits) is passed in by the caller. The methods are static and small so that the
 * JIT inlines them into the send path.
 */
final class AmChecks {
    private static final CoreAccess CORE = CoreAccess.get();

    private AmChecks() {
    }

    // ---------------------------------------------------------------------------------------------- registration

    /** A client index to register at: 0 (pick one) or in [128, 255]. */
    static void clientIndex(int index) {
        if (index < Am.INDEX_BASE || index > Am.MAX_INDEX) {
            throw new IllegalArgumentException("handler index " + index + " must be 0 (pick one) or in [128, 255]");
        }
    }

    /** A library index to register at: in [1, 127]. */
    static void systemIndex(int index) {
        if (index < 1 || index >= Am.INDEX_BASE) {
            throw new IllegalArgumentException("library handler index " + index + " outside [1, 127]");
        }
    }

    static IllegalArgumentException noFreeIndex() {
        return new IllegalArgumentException("all " + (Am.MAX_INDEX - Am.INDEX_BASE + 1)
            + " client handler indices [128, 255] are taken");
    }

    static void unregistered(AmHandler[] handlers, int index) {
        if (handlers[index] != null) {
            throw new IllegalArgumentException("handler index " + index + " is already registered ("
                + handlers[index] + ")");
        }
    }

    // ---------------------------------------------------------------------------------------------- context

    static void requestContext(Client client) {
        CORE.checkOpenAndNotRestricted(client, "an AM request");
    }

    static void replyContext(Client client, Token token) {
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

    /** A request ({@code token} null) or {@code token}'s reply. */
    static void sendContext(Client client, Token token) {
        if (token == null) {
            requestContext(client);
        } else {
            replyContext(client, token);
        }
    }

    // ---------------------------------------------------------------------------------------------- sends

    static void args(int[] args, int nargs) {
        nargs(nargs);
        if (nargs > 0 && (args == null || args.length < nargs)) {
            throw new IllegalArgumentException("args array of length " + (args == null ? 0 : args.length)
                + " holds fewer than nargs = " + nargs);
        }
    }

    static void nargs(int nargs) {
        if (nargs < 0 || nargs > Am.MAX_ARGS) {
            throw new IllegalArgumentException("nargs " + nargs + " outside [0, " + Am.MAX_ARGS + "]");
        }
    }

    /** A rank in [0, size). */
    static void peer(int peer, int size) {
        if (peer < 0 || peer >= size) {
            throw new IllegalArgumentException("rank " + peer + " outside [0, " + size + ")");
        }
    }

    /** The handler at {@code index} is registered and takes this category, direction and arity. */
    static void handler(AmHandler[] handlers, int index, int category, boolean request, int nargs) {
        if (index < 1 || index > Am.MAX_INDEX) {
            throw new IllegalArgumentException("handler index " + index + " outside [1, 255]");
        }
        final AmHandler h = handlers[index];
        if (h == null) {
            throw new IllegalArgumentException("handler index " + index + " is not registered");
        }
        if (h.accepts(AmFrameFlyweight.signature(category, request, nargs))) {
            return; // the send path's case: one compare; the checks below name what disagrees
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

    static void lc(Lc lc, int channel) {
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

    /** A payload length in [0, max]. */
    static void payload(long nbytes, long max) {
        if (nbytes < 0 || nbytes > max) {
            throw new IllegalArgumentException("payload of " + nbytes + " bytes outside [0, " + max + "]");
        }
    }

    /** For 1 byte or more: {@code [srcOffset, srcOffset + nbytes)} of {@code src}, which is not null. */
    static void source(MemorySegment src, long srcOffset, long nbytes) {
        if (src == null) {
            throw new NullPointerException("src is null with " + nbytes + " bytes to send");
        }
        if (srcOffset < 0 || srcOffset > src.byteSize() - nbytes) {
            throw new IllegalArgumentException("source range [" + srcOffset + ", " + (srcOffset + nbytes)
                + ") outside the source segment [0, " + src.byteSize() + ")");
        }
    }

    /** For 1 byte or more: a 0-byte Long writes nothing, and GASNet-EX passes its dest unchecked. */
    static void longDest(Client client, int peer, long dest, long nbytes) {
        client.segment().checkRemote(peer, dest, nbytes);
    }

    // ---------------------------------------------------------------------------------------------- NPAM

    /** A prepare's payload bounds against the category's maximum, and its client buffer and lc. */
    static void prepare(long least, long most, long max, MemorySegment clientBuffer, Lc lc, int channel) {
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
            lc(lc, channel);
            if (!clientBuffer.isNative()) {
                throw new IllegalArgumentException("NPAM client buffer must be off-heap (a native MemorySegment)");
            }
            if (clientBuffer.byteSize() < least) {
                throw new IllegalArgumentException("NPAM client buffer of " + clientBuffer.byteSize()
                    + " bytes is smaller than least payload " + least);
            }
        }
    }

    /** A commit's arity against the prepared one, and its length within the granted size. */
    static void commit(SrcDesc sd, long nbytes, int nargs) {
        if (nargs != sd.nargs) {
            throw new IllegalArgumentException("commit with " + nargs + " args; prepared with " + sd.nargs);
        }
        if (nbytes < 0 || nbytes > sd.size) {
            throw new IllegalArgumentException("commit of " + nbytes + " bytes outside [0, " + sd.size + "] prepared");
        }
    }
}
