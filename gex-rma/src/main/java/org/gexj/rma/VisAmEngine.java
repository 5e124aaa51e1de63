package org.gexj.rma;

import org.agrona.UnsafeApi;
import org.gexj.Client;
import org.gexj.Event;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Args;
import org.gexj.am.Payload;
import org.gexj.am.SrcDesc;
import org.gexj.am.Token;
import org.gexj.am.internal.AmAccess;
import org.gexj.internal.CoreAccess;
import org.gexj.internal.OperationSlots;
import org.gexj.internal.PayloadCopy;
import org.gexj.rma.wire.VisPieceFlyweight;
import org.gexj.rma.wire.VisShapeFlyweight;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Non-contiguous RMA packed into active messages (GASNet's VIS AM pipelining): a put sends Medium requests each
 * holding as many whole chunks as fit, their piece list then their bytes ({@link VisPieceFlyweight}: offsets alone
 * where every chunk has one length, as indexed and strided transfers' have, else offsets and lengths); the target
 * scatters them into its segment and acknowledges with a Short reply. A get sends the list alone; the target gathers
 * the bytes into its Medium reply, which the initiator scatters into the chunks' local places. Chunks larger than a
 * message are split first.
 *
 * <p>Lists and bytes move by native address, checked once a message and each piece against the segment as it lands,
 * not by a checked copy a piece: with 8-byte pieces those copies and the lengths in the list were most of the time.
 * A put's request is written in place in the conduit's frame (a negotiated-payload Medium), so its bytes are copied
 * once before the conduit sends them, not into a staging buffer first: with chunks of 4 KiB and more on udp that copy
 * was as costly as the rest. A local buffer on the heap, or one this thread may not access, goes by the checked copies
 * through the staging buffer. The target's side is {@link VisAmTarget}.
 *
 * <p>An operation in flight holds one of {@code GEX_VIS_AM_OPS} slots, whose chunk lists (copied from the caller's
 * plan, for a get's replies) grow and are reused. Threads: {@link #start} from any thread; handlers on the polling one.
 */
final class VisAmEngine {
    private static final CoreAccess CORE = CoreAccess.get();
    private static final AmAccess AM = AmAccess.get();
    static final int PUT = 86;
    static final int PUT_ACK = 87;
    static final int GET = 88;
    static final int GET_REPLY = 89;
    static final int PUT_STRIDED = 90;
    static final int GET_STRIDED = 91;
    static final int GET_STRIDED_REPLY = 92;

    private final Am am;
    private final Client client;
    private final VisAmTarget target;
    private final long requestMax;
    private final long replyMax;
    private final OperationSlots slots;
    private final Event[] events;
    private final VisPlan[] plans;
    private final MemorySegment[] buffers;
    /** Messages of each slot's operation not yet answered. */
    private final java.util.concurrent.atomic.AtomicIntegerArray remaining;
    /** Each thread's request being built; a send may poll and run the target's handlers, which have their own. */
    private final ThreadLocal<MemorySegment> staging;
    /** A put's plan with chunks split to fit a message, when some chunk does not. */
    private final ThreadLocal<VisPlan> splitPuts;
    /** A strided get's local side, by slot, for its replies. */
    private final VisShape[] shapes;
    /** Each thread's local side of the strided put it is packing. */
    private final ThreadLocal<VisShape> packingShapes;

    VisAmEngine(Am am) {
        this.am = am;
        this.client = am.client();
        this.requestMax = am.lubRequestMedium();
        this.replyMax = am.lubReplyMedium();
        final int count = client.config().getInt("GEX_VIS_AM_OPS", 64, 1, 1 << 16);
        this.slots = new OperationSlots(client, count,
            client.config().getLong("GEX_BACKPRESSURE_TIMEOUT", 60, 1, 86_400) * 1_000_000_000L,
            "VIS operations over AM (GEX_VIS_AM_OPS)");
        this.events = new Event[count];
        this.plans = new VisPlan[count];
        this.buffers = new MemorySegment[count];
        this.remaining = new java.util.concurrent.atomic.AtomicIntegerArray(count);
        this.shapes = new VisShape[count];
        for (int i = 0; i < count; i++) {
            plans[i] = new VisPlan();
            shapes[i] = new VisShape();
        }
        this.packingShapes = ThreadLocal.withInitial(VisShape::new);
        this.staging = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(requestMax, 8));
        this.splitPuts = ThreadLocal.withInitial(VisPlan::new);
        this.target = new VisAmTarget(client, requestMax, replyMax);
        final AmAccess access = AmAccess.get();
        access.registerSystem(am, PUT, AmHandler.mediumRequest(3, target::onPut).named("vis-put"));
        access.registerSystem(am, PUT_ACK, AmHandler.shortReply(1, (token, args) -> done(args.get(0), 1))
            .named("vis-put-ack"));
        access.registerSystem(am, GET, AmHandler.mediumRequest(4, target::onGet).named("vis-get"));
        access.registerSystem(am, GET_REPLY, AmHandler.mediumReply(3, this::onGetReply).named("vis-get-reply"));
        access.registerSystem(am, PUT_STRIDED,
            AmHandler.mediumRequest(1, target::onPutStrided).named("vis-put-strided"));
        access.registerSystem(am, GET_STRIDED,
            AmHandler.mediumRequest(2, target::onGetStrided).named("vis-get-strided"));
        access.registerSystem(am, GET_STRIDED_REPLY, AmHandler.mediumReply(2, this::onGetStridedReply)
            .named("vis-get-strided-reply"));
    }

    /**
     * Starts {@code plan} (checked) between {@code peer}'s segment and {@code buffer}; adds its messages to
     * {@code completion}, which completes once every chunk is at the target (put) or in {@code buffer} (get).
     */
    void start(boolean put, int peer, VisPlan plan, MemorySegment buffer, Event completion) {
        if (plan.chunks == 0) {
            return;
        }
        final int slot = slots.acquire();
        final long max = maxPiece(put);
        // a get's replies need its plan until they are all in: the slot keeps it; a put reads it during the call
        final VisPlan mine;
        if (plan.longest() > max) {
            mine = put ? splitPuts.get() : plans[slot];
            copySplit(plan, mine, max);
        } else if (put) {
            mine = plan;
        } else {
            mine = plans[slot];
            mine.copyFrom(plan);
        }
        send(put, peer, slot, mine.remote, mine.local, mine.length, mine.evenLength(), mine.chunks, buffer,
            completion);
    }

    /**
     * A vector or indexed transfer whose lists pair up, sent from the caller's lists without a plan where this can
     * prove what the plan's checks would: {@code count} pieces a side, piece i of {@code lengths[i]} bytes (or
     * {@code length} each where {@code lengths} is null; a vector's other side's lengths, {@code sameLengths}, the
     * same) at {@code remoteOffsets[i]} and {@code localOffsets[i]}, each non-empty, fitting a message and in range on
     * both sides, the destinations ascending and apart, and none continuing the piece before it on both sides (the
     * plan would merge those). With 8-byte pieces the plan's building and checks took as long as the sending.
     *
     * @return the pieces' bytes, or -1 (nothing checked of consequence) where the plan must be built instead
     */
    long pairedBytes(boolean put, long remoteSize, MemorySegment buffer, int count, long[] remoteOffsets,
                     long[] localOffsets, long[] lengths, long[] sameLengths, long length) {
        if (buffer == null || count <= 0 || remoteOffsets == null || localOffsets == null
            || count > remoteOffsets.length || count > localOffsets.length
            || (lengths == null ? length <= 0 : sameLengths == null || count > lengths.length
            || count > sameLengths.length)) {
            return -1;
        }
        final long max = maxPiece(put);
        final long localSize = buffer.byteSize();
        final long[] to = put ? remoteOffsets : localOffsets;
        long end = Long.MIN_VALUE;
        long bytes = 0;
        long nextRemote = -1;
        long nextLocal = -1;
        for (int i = 0; i < count; i++) {
            final long n = lengths == null ? length : lengths[i];
            final long r = remoteOffsets[i];
            final long l = localOffsets[i];
            if (n <= 0 || n > max || r < 0 || r > remoteSize - n || l < 0 || l > localSize - n || to[i] < end
                || lengths != null && sameLengths[i] != n || r == nextRemote && l == nextLocal) {
                return -1;
            }
            end = to[i] + n;
            nextRemote = r + n;
            nextLocal = l + n;
            bytes += n;
        }
        return bytes;
    }

    /** Starts a transfer that {@link #pairedBytes} accepted, as {@link #start} starts a plan. */
    void startPaired(boolean put, int peer, MemorySegment buffer, int count, long[] remoteOffsets,
                     long[] localOffsets, long[] lengths, long length, Event completion) {
        final int slot = slots.acquire();
        long even = length;
        if (lengths != null) {
            even = lengths[0];
            for (int i = 1; i < count && even > 0; i++) {
                if (lengths[i] != even) {
                    even = 0;
                }
            }
        }
        if (put) {
            send(true, peer, slot, remoteOffsets, localOffsets, lengths, even, count, buffer, completion);
        } else {
            final VisPlan mine = plans[slot]; // the replies scatter by it after the call returns
            mine.copyFrom(remoteOffsets, localOffsets, lengths, length, count);
            send(false, peer, slot, mine.remote, mine.local, mine.length, even, count, buffer, completion);
        }
    }

    /**
     * A strided transfer that can travel as its shape ({@link VisShapeFlyweight}) rather than as a piece list: checked
     * as {@link VisDirect#strided} checks one on cross-mapped memory (each side's range from the shape's extremes, the
     * destination's elements apart), with the levels contiguous on both sides folded into the element, which must fit
     * a message, and a local buffer this engine copies by address.
     *
     * @return the folded element's bytes, or -1 (nothing checked of consequence) where the plan must be built instead
     */
    long stridedElement(boolean put, long remoteSize, MemorySegment local, long remoteBase, long[] remoteStrides,
                        long localBase, long[] localStrides, long elemSize, long[] count, int levels) {
        if (local == null || elemSize <= 0 || levels < 0 || levels > VisShapeFlyweight.MAX_LEVELS || count == null
            || remoteStrides == null || localStrides == null || levels > count.length
            || levels > remoteStrides.length || levels > localStrides.length || !direct(local)) {
            return -1;
        }
        long elem = elemSize;
        int first = 0;
        while (first < levels && remoteStrides[first] == elem && localStrides[first] == elem) {
            if (count[first] <= 0 || Math.multiplyHigh(elem, count[first]) != 0 || elem * count[first] < 0) {
                return -1;
            }
            elem *= count[first];
            first++;
        }
        long elements = 1;
        for (int k = first; k < levels; k++) {
            if (count[k] <= 0 || Math.multiplyHigh(elements, count[k]) != 0 || elements * count[k] < 0) {
                return -1; // nothing to move, or a bad count, which the plan names
            }
            elements *= count[k];
        }
        if (!VisDirect.inRange(remoteBase, remoteStrides, elem, count, first, levels, remoteSize)
            || !VisDirect.inRange(localBase, localStrides, elem, count, first, levels, local.byteSize())
            || !VisDirect.disjoint(put ? remoteStrides : localStrides, elem, count, first, levels)) {
            return -1;
        }
        final long per = stridedPerMessage(put, elem, levels - first);
        return per <= 0 || (elements + per - 1) / per > Integer.MAX_VALUE ? -1 : elem;
    }

    /** Elements of {@code elem} bytes that a message of a {@code levels}-level shape holds (0: not one). */
    private long stridedPerMessage(boolean put, long elem, int levels) {
        final long header = VisShapeFlyweight.length(levels);
        return header > requestMax ? 0 : put ? (requestMax - header) / elem : replyMax / elem;
    }

    /** Starts a strided transfer that {@link #stridedElement} accepted, as {@link #start} starts a plan. */
    void startStrided(boolean put, int peer, MemorySegment buffer, long remoteBase, long[] remoteStrides,
                      long localBase, long[] localStrides, long elemSize, long[] count, int levels, Event completion) {
        long elem = elemSize;
        int first = 0;
        while (first < levels && remoteStrides[first] == elem && localStrides[first] == elem) {
            elem *= count[first];
            first++;
        }
        final int slot = slots.acquire();
        final VisShape mine = put ? packingShapes.get() : shapes[slot]; // a get's replies scatter by it later
        mine.set(localBase, elem, localStrides, count, first, levels);
        final long per = stridedPerMessage(put, elem, levels - first);
        mine.perMessage = per;
        final int messages = (int) ((mine.elements + per - 1) / per);
        events[slot] = completion;
        buffers[slot] = buffer;
        remaining.set(slot, messages);
        CORE.begin(completion, messages);
        final MemorySegment out = staging.get();
        final long outAddress = out.address();
        int sent = 0;
        try {
            for (; sent < messages; sent++) {
                final long from = sent * per;
                final long n = Math.min(per, mine.elements - from);
                if (put) {
                    final long bytes = VisShapeFlyweight.length(levels - first) + n * elem;
                    final SrcDesc sd = am.prepareRequestMedium(peer, null, bytes, bytes, null, 0, 1);
                    final long in = AM.preparedAddress(sd);
                    final long to = in != 0 ? in : outAddress;
                    try {
                        final long header = VisShapeFlyweight.write(to, remoteBase, elem, remoteStrides, count, first,
                            levels, from, n);
                        mine.copy(false, buffer.address(), from, n, to + header);
                        if (in == 0) {
                            sd.buffer().putBytes(0, out, 0, (int) bytes);
                        }
                    } catch (RuntimeException e) {
                        sd.cancel();
                        throw e;
                    }
                    sd.commit(PUT_STRIDED, bytes, slot);
                } else {
                    final long header = VisShapeFlyweight.write(outAddress, remoteBase, elem, remoteStrides, count,
                        first, levels, from, n);
                    am.requestMedium(peer, GET_STRIDED, out, 0, header, Lc.NOW, slot, sent);
                }
            }
        } catch (RuntimeException e) {
            done(slot, messages - sent);
            throw e;
        }
    }

    /** The longest piece a message takes with its list entry. */
    private long maxPiece(boolean put) {
        return (put ? requestMax : Math.min(requestMax, replyMax)) - VisPieceFlyweight.PIECE;
    }

    /**
     * Sends the {@code count} chunks in messages: chunk i at {@code remote[i]} and {@code local[i]}, of
     * {@code lengths[i]} bytes, or {@code even} each where that is > 0 (then {@code lengths} may be null); each fits a
     * message. The operation holds {@code slot}.
     */
    private void send(boolean put, int peer, int slot, long[] remote, long[] local, long[] lengths, long even,
                      int count, MemorySegment buffer, Event completion) {
        final int perMessage = even > 0 ? evenPerMessage(even, put) : 0;
        events[slot] = completion;
        buffers[slot] = buffer;
        int messages = 0;
        if (even > 0) {
            messages = (int) ((count + (long) perMessage - 1) / perMessage);
        } else {
            for (int first = 0; first < count; messages++) {
                first = endOfMessage(lengths, count, first, put);
            }
        }
        remaining.set(slot, messages);
        CORE.begin(completion, messages);
        final MemorySegment out = staging.get();
        final long outAddress = out.address();
        final boolean direct = put && direct(buffer);
        int sent = 0;
        try {
            for (int first = 0; first < count; sent++) {
                final int end = even > 0 ? (int) Math.min((long) first + perMessage, count)
                    : endOfMessage(lengths, count, first, put);
                if (put) {
                    final long bytes = requestBytes(lengths, even, first, end);
                    final SrcDesc sd = am.prepareRequestMedium(peer, null, bytes, bytes, null, 0, 3);
                    final long to = direct ? AM.preparedAddress(sd) : 0;
                    try {
                        if (to != 0) {
                            pack(local, lengths, even, first, end, buffer.address(), to, remote);
                        } else {
                            packStaged(local, remote, lengths, even, first, end, buffer, direct, out, sd);
                        }
                    } catch (RuntimeException e) {
                        sd.cancel();
                        throw e;
                    }
                    sd.commit(PUT, bytes, slot, end - first, (int) even);
                } else {
                    final long list = VisPieceFlyweight.write(outAddress, remote, lengths, even, first, end);
                    am.requestMedium(peer, GET, out, 0, list, Lc.NOW, slot, first, end - first, (int) even);
                }
                first = end;
            }
        } catch (RuntimeException e) {
            done(slot, messages - sent);
            throw e;
        }
    }

    /** Chunks of {@code even} bytes each that one message holds: a put's list and bytes, a get's list and reply. */
    private int evenPerMessage(long even, boolean put) {
        final long n = put ? requestMax / (VisPieceFlyweight.OFFSET + even)
            : Math.min(requestMax / VisPieceFlyweight.OFFSET, replyMax / even);
        return (int) Math.min(n, Integer.MAX_VALUE);
    }

    /**
     * The end (exclusive) of the chunks from {@code first} (of {@code count}, of {@code lengths} bytes) that one
     * message of a listed list holds: a put's list and bytes within a request; a get's list within a request and its
     * bytes within a reply. Each chunk alone fits (split before).
     */
    private int endOfMessage(long[] lengths, int count, int first, boolean put) {
        long list = 0;
        long data = 0;
        int i = first;
        while (i < count) {
            final long nextList = list + VisPieceFlyweight.PIECE;
            final long nextData = data + lengths[i];
            if (put ? nextList + nextData > requestMax : nextList > requestMax || nextData > replyMax) {
                break;
            }
            list = nextList;
            data = nextData;
            i++;
        }
        return i;
    }

    /** A put's request of chunks {@code [first, end)}: their list and bytes. */
    private static long requestBytes(long[] lengths, long even, int first, int end) {
        if (even > 0) {
            return (end - first) * (VisPieceFlyweight.OFFSET + even);
        }
        long bytes = (end - first) * (long) VisPieceFlyweight.PIECE;
        for (int i = first; i < end; i++) {
            bytes += lengths[i];
        }
        return bytes;
    }

    /**
     * Writes a put's request of chunks {@code [first, end)} at {@code to}, native memory of {@link #requestBytes}: the
     * list, then the bytes from the local buffer at {@code here}. @return its bytes
     */
    private static long pack(long[] local, long[] lengths, long even, int first, int end, long here, long to,
                             long[] remote) {
        long at = to + VisPieceFlyweight.write(to, remote, lengths, even, first, end);
        for (int i = first; i < end; i++) {
            final long n = even > 0 ? even : lengths[i];
            copy(here + local[i], at, n);
            at += n;
        }
        return at - to;
    }

    /**
     * Writes a put's request as {@link #pack} does, in this thread's staging buffer {@code out}, then into the
     * prepared message's buffer: where the local buffer is not one to copy by address, or the message's is not native.
     */
    private static void packStaged(long[] local, long[] remote, long[] lengths, long even, int first, int end,
                                   MemorySegment buffer, boolean direct, MemorySegment out, SrcDesc sd) {
        long at;
        if (direct) {
            at = pack(local, lengths, even, first, end, buffer.address(), out.address(), remote);
        } else {
            at = VisPieceFlyweight.write(out.address(), remote, lengths, even, first, end);
            for (int i = first; i < end; i++) {
                final long n = even > 0 ? even : lengths[i];
                MemorySegment.copy(buffer, local[i], out, at, n);
                at += n;
            }
        }
        sd.buffer().putBytes(0, out, 0, (int) at);
    }

    /** Copies {@code from} into {@code to}, splitting chunks longer than {@code max}. */
    private static void copySplit(VisPlan from, VisPlan to, long max) {
        to.clear();
        for (int i = 0; i < from.chunks; i++) {
            for (long done = 0; done < from.length[i]; done += max) {
                final long n = Math.min(max, from.length[i] - done);
                to.addUnmerged(from.remote[i] + done, from.local[i] + done, n);
            }
        }
    }

    private void onGetReply(Token token, Payload payload, Args args) {
        final int slot = args.get(0);
        final VisPlan plan = plans[slot];
        final MemorySegment buffer = buffers[slot];
        final int end = args.get(1) + args.get(2);
        long at = 0;
        Throwable failure = null;
        try {
            if (direct(buffer) && !buffer.isReadOnly()) {
                final long address = target.readable(payload);
                final long length = payload.length();
                final long here = buffer.address();
                for (int i = args.get(1); i < end; i++) {
                    final long n = plan.length[i];
                    if (at > length - n) {
                        throw new IllegalStateException("a VIS get's reply of " + length + " bytes ends before its"
                            + " piece " + i + " (" + n + " bytes from " + at + ")");
                    }
                    copy(address + at, here + plan.local[i], n);
                    at += n;
                }
            } else {
                for (int i = args.get(1); i < end; i++) {
                    payload.copyTo(at, buffer, plan.local[i], plan.length[i]);
                    at += plan.length[i];
                }
            }
        } catch (RuntimeException e) {
            failure = e; // the destination's arena was closed meanwhile
        }
        finish(slot, 1, failure);
    }

    private void onGetStridedReply(Token token, Payload payload, Args args) {
        final int slot = args.get(0);
        final VisShape shape = shapes[slot];
        final MemorySegment buffer = buffers[slot];
        Throwable failure = null;
        try {
            final long first = args.get(1) * shape.perMessage;
            final long n = Math.min(shape.perMessage, shape.elements - first);
            if (first < 0 || n < 0 || payload.length() != n * shape.elem) {
                throw new IllegalStateException("a VIS get's reply of " + payload.length() + " bytes for elements ["
                    + first + ", " + (first + n) + ") of " + shape.elem + " bytes");
            }
            if (!direct(buffer) || buffer.isReadOnly()) {
                throw new IllegalStateException("the destination of a VIS get is no longer accessible: its arena was"
                    + " closed before the data came");
            }
            shape.copy(true, buffer.address(), first, n, target.readable(payload));
        } catch (RuntimeException e) {
            failure = e;
        }
        finish(slot, 1, failure);
    }

    /** A buffer this engine copies by address: native, and accessible to this thread now. */
    private static boolean direct(MemorySegment buffer) {
        return buffer.isNative() && PayloadCopy.accessible(buffer);
    }

    /**
     * Copies between native ranges that the callers checked and that do not overlap, as {@link PayloadCopy} chooses:
     * loads and stores up to 32 bytes, the JDK's copy stub up to {@link PayloadCopy#MEMCPY_MIN}, {@code memcpy} above.
     */
    static void copy(long from, long to, long n) {
        if (n <= 0) {
            return;
        }
        if (n <= PayloadCopy.SMALL_COPY_MAX) {
            PayloadCopy.copySmall(from, to, n);
        } else if (n < PayloadCopy.MEMCPY_MIN) {
            UnsafeApi.copyMemory(from, to, n);
        } else {
            PayloadCopy.memcpy(to, from, n);
        }
    }

    /** Counts {@code messages} of the operation in {@code slot} answered; the last frees the slot. */
    private void done(int slot, int messages) {
        if (messages > 0) {
            finish(slot, messages, null);
        }
    }

    private void finish(int slot, int messages, Throwable failure) {
        final Event e = events[slot];
        if (remaining.addAndGet(slot, -messages) == 0) {
            events[slot] = null;
            buffers[slot] = null;
            slots.release(slot);
        }
        if (failure == null) {
            CORE.complete(e, messages);
        } else {
            CORE.fail(e, messages, failure);
        }
    }
}
