package org.gexj.rma;

import org.gexj.Client;
import org.gexj.Flags;
import org.gexj.Lc;
import org.gexj.am.Args;
import org.gexj.am.Payload;
import org.gexj.am.SrcDesc;
import org.gexj.am.Token;
import org.gexj.am.internal.AmAccess;
import org.gexj.rma.wire.VisPieceFlyweight;
import org.gexj.rma.wire.VisShapeFlyweight;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The target's side of {@link VisAmEngine}'s packed transfers: its request handlers scatter a put's bytes into this
 * rank's segment and gather a get's into the reply, each message's list or shape checked against the payload and each
 * piece against the segment before anything moves ({@link VisAmChecks}). A get's reply is written in place in the
 * conduit's frame where there is room at once, else gathered here first and copied in by the send.
 *
 * <p>Threads: the handlers run on the polling thread, each with its own buffers.
 */
final class VisAmTarget {
    private static final AmAccess AM = AmAccess.get();

    private final Client client;
    private final long replyMax;
    /** Each thread's reply being built where it cannot be built in place. */
    private final ThreadLocal<MemorySegment> replies;
    /** A delivered payload copied to native memory where the conduit delivered it elsewhere. */
    private final ThreadLocal<MemorySegment> landings;
    /** Each polling thread's shape of the strided message its handler is running. */
    private final ThreadLocal<VisShape> handlerShapes = ThreadLocal.withInitial(VisShape::new);

    VisAmTarget(Client client, long requestMax, long replyMax) {
        this.client = client;
        this.replyMax = replyMax;
        this.replies = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(replyMax, 8));
        this.landings = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(Math.max(requestMax, replyMax), 8));
    }

    void onPut(Token token, Payload payload, Args args) {
        final int pieces = args.get(1);
        final long even = args.get(2);
        final int stride = VisPieceFlyweight.stride(even);
        final long length = payload.length();
        final long address = readable(payload);
        final MemorySegment segment = client.segment().memory();
        final long base = segment.address();
        final long size = segment.byteSize();
        long at = VisAmChecks.checkList(pieces, stride, length);
        for (int i = 0; i < pieces; i++) {
            final long offset = VisPieceFlyweight.offset(address, stride, i);
            final long n = VisPieceFlyweight.length(address, even, i);
            VisAmChecks.checkPiece(offset, n, size, at, length);
            VisAmEngine.copy(address + at, base + offset, n);
            at += n;
        }
        token.replyShort(VisAmEngine.PUT_ACK, args.get(0));
    }

    void onGet(Token token, Payload payload, Args args) {
        final int pieces = args.get(2);
        final long even = args.get(3);
        final int stride = VisPieceFlyweight.stride(even);
        final long address = readable(payload);
        VisAmChecks.checkList(pieces, stride, payload.length());
        // one pass where the pieces have one length: with 8-byte pieces a pass of checks first slowed ofi's gets
        final long bytes = even > 0 && pieces * even <= replyMax ? pieces * even
            : checkGet(address, stride, even, pieces);
        final SrcDesc sd = prepareReply(token, bytes, 3);
        final long to = replyAt(sd);
        if (!gather(address, stride, even, pieces, to, bytes)) {
            if (sd != null) {
                sd.cancel();
            }
            checkGet(address, stride, even, pieces); // names the piece
            throw new IllegalStateException("a damaged VIS get: its pieces do not fit a reply of " + bytes + " bytes");
        }
        if (prepared(sd, to, bytes)) {
            sd.commit(VisAmEngine.GET_REPLY, bytes, args.get(0), args.get(1), pieces);
        } else {
            token.replyMedium(VisAmEngine.GET_REPLY, replies.get(), 0, bytes, Lc.NOW, args.get(0), args.get(1), pieces);
        }
    }

    /**
     * Copies the segment's pieces of a get's list at {@code list} to {@code to}, {@code limit} bytes in all.
     *
     * @return false (part copied) at the first piece outside the segment or beyond the limit
     */
    private boolean gather(long list, int stride, long even, int pieces, long to, long limit) {
        final MemorySegment segment = client.segment().memory();
        final long base = segment.address();
        final long size = segment.byteSize();
        long at = 0;
        for (int i = 0; i < pieces; i++) {
            final long offset = VisPieceFlyweight.offset(list, stride, i);
            final long n = VisPieceFlyweight.length(list, even, i);
            if (n < 0 || offset < 0 || offset > size - n || at > limit - n) {
                return false;
            }
            VisAmEngine.copy(base + offset, to + at, n);
            at += n;
        }
        return true;
    }

    /** Checks each piece of a get's list against the segment and the reply. @return the reply's bytes */
    private long checkGet(long list, int stride, long even, int pieces) {
        final long size = client.segment().memory().byteSize();
        long bytes = 0;
        for (int i = 0; i < pieces; i++) {
            final long n = VisPieceFlyweight.length(list, even, i);
            VisAmChecks.checkPiece(VisPieceFlyweight.offset(list, stride, i), n, size, bytes, replyMax);
            bytes += n;
        }
        return bytes;
    }

    /**
     * A reply of {@code bytes} to be written in place, or null where the path has no room now: waiting for it polls,
     * and a reply handler run then may reuse this thread's landing buffer, which may hold the request being answered.
     * Its message was checked: nothing between this and the commit throws.
     */
    private static SrcDesc prepareReply(Token token, long bytes, int nargs) {
        return token.prepareReplyMedium(null, bytes, bytes, null, Flags.IMMEDIATE, nargs);
    }

    /** Where a reply is written: in place in {@code sd}'s frame where that is native memory, else in this thread's. */
    private long replyAt(SrcDesc sd) {
        final long in = sd == null ? 0 : AM.preparedAddress(sd);
        return in != 0 ? in : replies.get().address();
    }

    /**
     * Whether the reply written at {@code at} goes by {@code sd}'s commit: copied into it first where it was written in
     * this thread's buffer. False where none was prepared: it goes by a reply from that buffer, which may wait.
     */
    private boolean prepared(SrcDesc sd, long at, long bytes) {
        if (sd == null) {
            return false;
        }
        final MemorySegment out = replies.get();
        if (at == out.address()) {
            sd.buffer().putBytes(0, out, 0, (int) bytes);
        }
        return true;
    }

    void onPutStrided(Token token, Payload payload, Args args) {
        final VisShape shape = handlerShapes.get();
        final long address = readable(payload);
        final long header = VisAmChecks.readShape(shape, address, payload.length());
        final long first = VisShapeFlyweight.first(address);
        final long n = VisShapeFlyweight.count(address);
        final MemorySegment segment = client.segment().memory();
        VisAmChecks.checkShape(shape, first, n, segment.byteSize(), payload.length() - header);
        shape.copy(true, segment.address(), first, n, address + header);
        token.replyShort(VisAmEngine.PUT_ACK, args.get(0));
    }

    void onGetStrided(Token token, Payload payload, Args args) {
        final VisShape shape = handlerShapes.get();
        final long address = readable(payload);
        VisAmChecks.readShape(shape, address, payload.length());
        final long first = VisShapeFlyweight.first(address);
        final long n = VisShapeFlyweight.count(address);
        final MemorySegment segment = client.segment().memory();
        final MemorySegment out = replies.get();
        VisAmChecks.checkShape(shape, first, n, segment.byteSize(), out.byteSize());
        final long bytes = n * shape.elem;
        final SrcDesc sd = prepareReply(token, bytes, 2);
        final long to = replyAt(sd);
        shape.copy(false, segment.address(), first, n, to);
        if (prepared(sd, to, bytes)) {
            sd.commit(VisAmEngine.GET_STRIDED_REPLY, bytes, args.get(0), args.get(1));
        } else {
            token.replyMedium(VisAmEngine.GET_STRIDED_REPLY, out, 0, bytes, Lc.NOW, args.get(0), args.get(1));
        }
    }

    /**
     * The payload's bytes at a native address: where the conduit delivered them, or copied to this thread's landing
     * buffer, valid until this thread's next handler (a reply handler run while a request handler waits reuses it).
     */
    long readable(Payload payload) {
        final long address = AM.payloadAddress(payload);
        if (address != 0) {
            return address;
        }
        final MemorySegment landing = landings.get();
        payload.copyTo(0, landing, 0, payload.length());
        return landing.address();
    }
}
