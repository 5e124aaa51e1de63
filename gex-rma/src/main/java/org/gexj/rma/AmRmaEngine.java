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

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * RMA over active messages, GASNet's extended-ref reference for conduits without native RMA. A put is a train of
 * Medium requests (payload plus target offset) each acknowledged by a Short reply; a get is a train of Short
 * requests each answered by a Medium reply carrying the data. Chunks are at most the Medium limit.
 *
 * <p>Operations in flight live in a fixed table of {@code GEX_RMA_AM_OPS} slots; the slot index travels in the
 * messages, so no allocation happens per operation. When every slot is busy the initiator polls until one frees.
 */
final class AmRmaEngine implements RmaEngine {
    private static final CoreAccess CORE = CoreAccess.get();

    static final int PUT_REQUEST = 64;
    static final int PUT_ACK = 65;
    static final int GET_REQUEST = 66;
    static final int GET_REPLY = 67;

    private final Am am;
    private final Client client;
    private final long putChunk;
    private final long getChunk;
    private final Operation[] operations;
    private final OperationSlots slots;

    /** One RMA operation in flight. */
    private static final class Operation {
        /** Chunks not yet completed: decremented by handlers and, after a failed send, by the sender. */
        private static final VarHandle REMAINING;

        static {
            try {
                REMAINING = MethodHandles.lookup().findVarHandle(Operation.class, "remaining", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final int id;
        Event completion;
        volatile int remaining;
        MemorySegment dst;
        /** Set by a chunk that could not be stored; reported by the operation's event. */
        volatile Throwable failure;
        long dstOffset;
        long remoteOffset;

        Operation(int id) {
            this.id = id;
        }
    }

    AmRmaEngine(Am am) {
        this.am = am;
        this.client = am.client();
        final int count = client.config().getInt("GEX_RMA_AM_OPS", 256, 1, 1 << 20);
        this.operations = new Operation[count];
        for (int i = 0; i < count; i++) {
            operations[i] = new Operation(i);
        }
        this.slots = new OperationSlots(client, count,
            client.config().getLong("GEX_BACKPRESSURE_TIMEOUT", 60, 1, 86_400) * 1_000_000_000L,
            "RMA-over-AM operation slots (GEX_RMA_AM_OPS)");
        this.putChunk = am.lubRequestMedium();
        this.getChunk = am.lubReplyMedium();
        final AmAccess access = AmAccess.get();
        access.registerSystem(am, PUT_REQUEST, AmHandler.mediumRequest(3, this::onPutRequest).named("rma-put"));
        access.registerSystem(am, PUT_ACK, AmHandler.shortReply(1, this::onPutAck).named("rma-put-ack"));
        access.registerSystem(am, GET_REQUEST, AmHandler.shortRequest(4, this::onGetRequest).named("rma-get"));
        access.registerSystem(am, GET_REPLY, AmHandler.mediumReply(3, this::onGetReply).named("rma-get-reply"));
    }

    @Override
    public boolean synchronous() {
        return false;
    }

    @Override
    public void put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, Event completion,
                    Event local) {
        if (nbytes == 0) {
            return;
        }
        final int chunks = (int) ((nbytes + putChunk - 1) / putChunk);
        final Operation op = acquire();
        op.completion = completion;
        op.remaining = chunks;
        CORE.begin(completion, chunks);
        int sent = 0;
        try {
            for (long done = 0; done < nbytes; done += putChunk, sent++) {
                final long at = remoteOffset + done;
                am.requestMedium(peer, PUT_REQUEST, src, srcOffset + done, Math.min(putChunk, nbytes - done), Lc.NOW,
                    op.id, (int) (at >>> 32), (int) at);
            }
        } catch (RuntimeException e) {
            complete(op, chunks - sent);
            throw e;
        }
    }

    @Override
    public void get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, Event completion) {
        if (nbytes == 0) {
            return;
        }
        final int chunks = (int) ((nbytes + getChunk - 1) / getChunk);
        final Operation op = acquire();
        op.completion = completion;
        op.remaining = chunks;
        op.dst = dst;
        op.dstOffset = dstOffset;
        op.remoteOffset = remoteOffset;
        CORE.begin(completion, chunks);
        int sent = 0;
        try {
            for (long done = 0; done < nbytes; done += getChunk, sent++) {
                final long at = remoteOffset + done;
                am.requestShort(peer, GET_REQUEST, op.id, (int) (at >>> 32), (int) at,
                    (int) Math.min(getChunk, nbytes - done));
            }
        } catch (RuntimeException e) {
            complete(op, chunks - sent);
            throw e;
        }
    }

    private void onPutRequest(Token token, Payload payload, Args args) {
        final long at = offset(args.get(1), args.get(2));
        payload.copyTo(0, client.segment().memory(), at, payload.length());
        token.replyShort(PUT_ACK, args.get(0));
    }

    private void onPutAck(Token token, Args args) {
        complete(operations[args.get(0)], 1);
    }

    private void onGetRequest(Token token, Args args) {
        token.replyMedium(GET_REPLY, client.segment().memory(), offset(args.get(1), args.get(2)), args.get(3), Lc.NOW,
            args.get(0), args.get(1), args.get(2));
    }

    /**
     * Stores a chunk of a get. The destination was checked at the call, but if storing still fails (its arena was
     * closed meanwhile) the operation completes with that failure instead of staying pending or failing the poll.
     */
    private void onGetReply(Token token, Payload payload, Args args) {
        final Operation op = operations[args.get(0)];
        final long at = offset(args.get(1), args.get(2));
        try {
            payload.copyTo(0, op.dst, op.dstOffset + (at - op.remoteOffset), payload.length());
        } catch (RuntimeException e) {
            op.failure = e;
        }
        complete(op, 1);
    }

    private static long offset(int high, int low) {
        return ((long) high << 32) | (low & 0xffff_ffffL);
    }

    /**
     * Counts {@code chunks} of {@code op} done: acknowledged, or never sent because the send failed, so that the
     * operation's event still completes (a thread's blocking event is reused) and its slot comes back.
     */
    private void complete(Operation op, int chunks) {
        if (chunks == 0) {
            return;
        }
        final Event e = op.completion;
        final Throwable failure = op.failure;
        if ((int) Operation.REMAINING.getAndAdd(op, -chunks) == chunks) {
            op.completion = null;
            op.dst = null;
            op.failure = null;
            release(op.id);
        }
        if (failure == null) {
            CORE.complete(e, chunks);
        } else {
            CORE.fail(e, chunks, failure);
        }
    }

    private Operation acquire() {
        return operations[slots.acquire()];
    }

    private void release(int id) {
        slots.release(id);
    }
}
