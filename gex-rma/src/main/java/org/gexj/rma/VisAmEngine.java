package org.gexj.rma;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Args;
import org.gexj.am.Payload;
import org.gexj.am.Token;
import org.gexj.am.internal.AmAccess;
import org.gexj.internal.CoreAccess;
import org.gexj.internal.OperationSlots;
import org.gexj.rma.wire.VisPieceFlyweight;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Non-contiguous RMA packed into active messages (GASNet's VIS AM pipelining): a put sends Medium requests each
 * holding as many whole chunks as fit, their (offset, length) list then their bytes ({@link VisPieceFlyweight}); the
 * target scatters them into its segment and acknowledges with a Short reply. A get sends the lists alone; the target
 * gathers the bytes into its Medium reply, which the initiator scatters into the chunks' local places. Chunks larger
 * than a message are split first.
 *
 * <p>An operation in flight holds one of {@code GEX_VIS_AM_OPS} slots, whose chunk lists (copied from the caller's
 * plan, for a get's replies) grow and are reused. Threads: {@link #start} from any thread; handlers on the polling one.
 */
final class VisAmEngine {
    private static final CoreAccess CORE = CoreAccess.get();
    static final int PUT = 86;
    static final int PUT_ACK = 87;
    static final int GET = 88;
    static final int GET_REPLY = 89;

    private final Am am;
    private final Client client;
    private final long requestMax;
    private final long replyMax;
    private final OperationSlots slots;
    private final Event[] events;
    private final VisPlan[] plans;
    private final MemorySegment[] buffers;
    /** Messages of each slot's operation not yet answered. */
    private final java.util.concurrent.atomic.AtomicIntegerArray remaining;
    /** Each thread's request being built; a send may poll and run {@link #onGet}, which has its own. */
    private final ThreadLocal<MemorySegment> staging;
    /** A put's plan with chunks split to fit a message, when some chunk does not. */
    private final ThreadLocal<VisPlan> splitPuts;
    private final ThreadLocal<MemorySegment> replies;

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
        for (int i = 0; i < count; i++) {
            plans[i] = new VisPlan();
        }
        this.staging = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(requestMax, 8));
        this.splitPuts = ThreadLocal.withInitial(VisPlan::new);
        this.replies = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(replyMax, 8));
        final AmAccess access = AmAccess.get();
        access.registerSystem(am, PUT, AmHandler.mediumRequest(2, this::onPut).named("vis-put"));
        access.registerSystem(am, PUT_ACK, AmHandler.shortReply(1, (token, args) -> done(args.get(0), 1))
            .named("vis-put-ack"));
        access.registerSystem(am, GET, AmHandler.mediumRequest(3, this::onGet).named("vis-get"));
        access.registerSystem(am, GET_REPLY, AmHandler.mediumReply(3, this::onGetReply).named("vis-get-reply"));
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
        final long max = (put ? requestMax : Math.min(requestMax, replyMax)) - VisPieceFlyweight.PIECE;
        // a get's replies need its plan until they are all in: the slot keeps it; a put reads it during the call
        final VisPlan mine = put && plan.longest() <= max ? plan : put ? splitPuts.get() : plans[slot];
        if (mine != plan) {
            copySplit(plan, mine, max);
        }
        events[slot] = completion;
        buffers[slot] = buffer;
        int messages = 0;
        for (int first = 0; first < mine.chunks; messages++) {
            first = endOfMessage(mine, first, put);
        }
        remaining.set(slot, messages);
        CORE.begin(completion, messages);
        final MemorySegment out = staging.get();
        int sent = 0;
        try {
            for (int first = 0; first < mine.chunks; sent++) {
                final int end = endOfMessage(mine, first, put);
                long at = VisPieceFlyweight.write(out, mine.remote, mine.length, first, end);
                if (put) {
                    for (int i = first; i < end; i++) {
                        MemorySegment.copy(buffer, mine.local[i], out, at, mine.length[i]);
                        at += mine.length[i];
                    }
                    am.requestMedium(peer, PUT, out, 0, at, Lc.NOW, slot, end - first);
                } else {
                    am.requestMedium(peer, GET, out, 0, at, Lc.NOW, slot, first, end - first);
                }
                first = end;
            }
        } catch (RuntimeException e) {
            done(slot, messages - sent);
            throw e;
        }
    }

    /**
     * The end (exclusive) of the chunks from {@code first} that one message holds: a put's list and bytes within a
     * request; a get's list within a request and its bytes within a reply. Each chunk alone fits (split before).
     */
    private int endOfMessage(VisPlan plan, int first, boolean put) {
        long list = 0;
        long data = 0;
        int i = first;
        while (i < plan.chunks) {
            final long nextList = list + VisPieceFlyweight.PIECE;
            final long nextData = data + plan.length[i];
            if (put ? nextList + nextData > requestMax : nextList > requestMax || nextData > replyMax) {
                break;
            }
            list = nextList;
            data = nextData;
            i++;
        }
        return i;
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

    private void onPut(Token token, Payload payload, Args args) {
        final MemorySegment segment = client.segment().memory();
        final int pieces = args.get(1);
        long at = (long) pieces * VisPieceFlyweight.PIECE;
        for (int i = 0; i < pieces; i++) {
            final long offset = VisPieceFlyweight.offset(payload, i);
            final long n = VisPieceFlyweight.length(payload, i);
            payload.copyTo(at, segment, offset, n);
            at += n;
        }
        token.replyShort(PUT_ACK, args.get(0));
    }

    private void onGet(Token token, Payload payload, Args args) {
        final MemorySegment segment = client.segment().memory();
        final int pieces = args.get(2);
        final MemorySegment out = replies.get();
        long at = 0;
        for (int i = 0; i < pieces; i++) {
            final long offset = VisPieceFlyweight.offset(payload, i);
            final long n = VisPieceFlyweight.length(payload, i);
            MemorySegment.copy(segment, offset, out, at, n);
            at += n;
        }
        token.replyMedium(GET_REPLY, out, 0, at, Lc.NOW, args.get(0), args.get(1), pieces);
    }

    private void onGetReply(Token token, Payload payload, Args args) {
        final int slot = args.get(0);
        final VisPlan plan = plans[slot];
        final MemorySegment buffer = buffers[slot];
        final int end = args.get(1) + args.get(2);
        long at = 0;
        Throwable failure = null;
        try {
            for (int i = args.get(1); i < end; i++) {
                payload.copyTo(at, buffer, plan.local[i], plan.length[i]);
                at += plan.length[i];
            }
        } catch (RuntimeException e) {
            failure = e; // the destination's arena was closed meanwhile
        }
        finish(slot, 1, failure);
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
