package org.gexj.rma;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.GexException;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Args;
import org.gexj.am.Payload;
import org.gexj.am.Token;
import org.gexj.am.internal.AmAccess;
import org.gexj.internal.CoreAccess;
import org.gexj.internal.OperationSlots;
import org.gexj.spi.RegisteredAccess;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * RMA over active messages, GASNet's extended-ref reference for conduits without native RMA. A put is a train of
 * Medium requests (payload plus target offset) each acknowledged by a Short reply; a get is a train of Short
 * requests each answered by a Medium reply carrying the data. Chunks are at most the Medium limit.
 *
 * <p>The same protocol reaches registered memory ({@link org.gexj.Registration}) on every conduit, by the
 * registration's handle and an offset into it: there the target checks the handle and the range itself, since a
 * descriptor may outlive its registration, and answers each chunk with a status; a refused chunk fails its operation
 * with an exception naming the rank and the range, and nothing is written.
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
    static final int REG_PUT_REQUEST = 68;
    static final int REG_PUT_ACK = 69;
    static final int REG_GET_REQUEST = 70;
    static final int REG_GET_REPLY = 71;

    /** The handle that names the peer's segment instead of a registration (no registration has it). */
    static final int SEGMENT = 0;
    /** A registered chunk's status: moved. */
    static final int MOVED = 0;
    /** Refused: the handle names no open registration (closed, or never made), or its memory's arena was closed. */
    static final int NOT_REGISTERED = 1;
    /** Refused: the range is outside the registration (a descriptor that lies about its length). */
    static final int OUT_OF_RANGE = 2;
    /** Refused: a put into read-only memory. */
    static final int READ_ONLY = 3;
    /**
     * Refused by the owner's NIC (a registration reached by key): it does not say which of {@link #NOT_REGISTERED} and
     * {@link #OUT_OF_RANGE} applies.
     */
    static final int NIC_REFUSED = 4;

    private final Am am;
    private final Client client;
    private final long putChunk;
    private final long getChunk;
    private final Operation[] operations;
    private final OperationSlots slots;
    /** The conduit's zero-copy access to registered memory, tried first, or null. */
    private final RegisteredAccess direct;
    /** Each thread's args of a registered get request, which has more args than the fixed-arity sends take. */
    private final ThreadLocal<int[]> getArgs = ThreadLocal.withInitial(() -> new int[5]);

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
        /** The operation's target, handle (or {@link #SEGMENT}) and bytes, for the message if the target refuses it. */
        int peer;
        int handle;
        long nbytes;

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
        this.direct = CORE.conduit(client).registeredAccess();
        this.putChunk = am.lubRequestMedium();
        this.getChunk = am.lubReplyMedium();
        final AmAccess access = AmAccess.get();
        access.registerSystem(am, PUT_REQUEST, AmHandler.mediumRequest(3, this::onPutRequest).named("rma-put"));
        access.registerSystem(am, PUT_ACK, AmHandler.shortReply(1, this::onPutAck).named("rma-put-ack"));
        access.registerSystem(am, GET_REQUEST, AmHandler.shortRequest(4, this::onGetRequest).named("rma-get"));
        access.registerSystem(am, GET_REPLY, AmHandler.mediumReply(3, this::onGetReply).named("rma-get-reply"));
        access.registerSystem(am, REG_PUT_REQUEST,
            AmHandler.mediumRequest(4, this::onRegisteredPutRequest).named("rma-registered-put"));
        access.registerSystem(am, REG_PUT_ACK,
            AmHandler.shortReply(2, this::onRegisteredPutAck).named("rma-registered-put-ack"));
        access.registerSystem(am, REG_GET_REQUEST,
            AmHandler.shortRequest(5, this::onRegisteredGetRequest).named("rma-registered-get"));
        access.registerSystem(am, REG_GET_REPLY,
            AmHandler.mediumReply(4, this::onRegisteredGetReply).named("rma-registered-get-reply"));
    }

    @Override
    public boolean synchronous() {
        return false;
    }

    @Override
    public void put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, Event completion,
                    Event local) {
        putRegistered(peer, SEGMENT, remoteOffset, src, srcOffset, nbytes, completion);
    }

    @Override
    public void get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, Event completion) {
        getRegistered(dst, dstOffset, peer, SEGMENT, remoteOffset, nbytes, completion);
    }

    /**
     * A put into {@code peer}'s registration {@code handle}, or its segment ({@link #SEGMENT}), at
     * {@code remoteOffset}; checked by the caller.
     */
    void putRegistered(int peer, int handle, long remoteOffset, MemorySegment src, long srcOffset, long nbytes,
                       Event completion) {
        if (nbytes == 0) {
            return;
        }
        if (direct != null && handle != SEGMENT
            && finishedDirectly(direct.put(peer, handle, remoteOffset, src, srcOffset, nbytes), completion, peer,
                "put to", remoteOffset, nbytes, handle)) {
            return;
        }
        final int chunks = (int) ((nbytes + putChunk - 1) / putChunk);
        final Operation op = acquire(peer, handle, remoteOffset, nbytes);
        op.completion = completion;
        op.remaining = chunks;
        CORE.begin(completion, chunks);
        int sent = 0;
        try {
            for (long done = 0; done < nbytes; done += putChunk, sent++) {
                final long at = remoteOffset + done;
                final long length = Math.min(putChunk, nbytes - done);
                if (handle == SEGMENT) {
                    am.requestMedium(peer, PUT_REQUEST, src, srcOffset + done, length, Lc.NOW, op.id,
                        (int) (at >>> 32), (int) at);
                } else {
                    am.requestMedium(peer, REG_PUT_REQUEST, src, srcOffset + done, length, Lc.NOW, op.id, handle,
                        (int) (at >>> 32), (int) at);
                }
            }
        } catch (RuntimeException e) {
            complete(op, chunks - sent);
            throw e;
        }
    }

    /**
     * A get from {@code peer}'s registration {@code handle}, or its segment ({@link #SEGMENT}), at
     * {@code remoteOffset}; checked by the caller.
     */
    void getRegistered(MemorySegment dst, long dstOffset, int peer, int handle, long remoteOffset, long nbytes,
                       Event completion) {
        if (nbytes == 0) {
            return;
        }
        if (direct != null && handle != SEGMENT
            && finishedDirectly(direct.get(dst, dstOffset, peer, handle, remoteOffset, nbytes), completion, peer,
                "get from", remoteOffset, nbytes, handle)) {
            return;
        }
        final int chunks = (int) ((nbytes + getChunk - 1) / getChunk);
        final Operation op = acquire(peer, handle, remoteOffset, nbytes);
        op.completion = completion;
        op.remaining = chunks;
        op.dst = dst;
        op.dstOffset = dstOffset;
        CORE.begin(completion, chunks);
        int sent = 0;
        try {
            for (long done = 0; done < nbytes; done += getChunk, sent++) {
                final long at = remoteOffset + done;
                final int length = (int) Math.min(getChunk, nbytes - done);
                if (handle == SEGMENT) {
                    am.requestShort(peer, GET_REQUEST, op.id, (int) (at >>> 32), (int) at, length);
                } else {
                    final int[] args = getArgs.get();
                    args[0] = op.id;
                    args[1] = handle;
                    args[2] = (int) (at >>> 32);
                    args[3] = (int) at;
                    args[4] = length;
                    am.requestShort(peer, REG_GET_REQUEST, 0, args, args.length);
                }
            }
        } catch (RuntimeException e) {
            complete(op, chunks - sent);
            throw e;
        }
    }

    /**
     * Completes an operation the conduit moved (or refused) itself ({@link RegisteredAccess}); a refusal fails
     * {@code completion} as the owner's refusal over AM would.
     *
     * @return false if the conduit did not take it ({@link RegisteredAccess#ELSEWHERE}): send it over AM
     */
    private static boolean finishedDirectly(int status, Event completion, int peer, String what, long remoteOffset,
                                            long nbytes, int handle) {
        if (status == RegisteredAccess.ELSEWHERE) {
            return false;
        }
        if (status != RegisteredAccess.OK) {
            final int refusal = switch (status) {
                case RegisteredAccess.OUT_OF_RANGE -> OUT_OF_RANGE;
                case RegisteredAccess.READ_ONLY -> READ_ONLY;
                default -> NOT_REGISTERED; // a fault too: the memory's arena closed and its pages went
            };
            CORE.begin(completion, 1);
            CORE.fail(completion, 1, refusal(peer, what, remoteOffset, nbytes, handle, refusal));
        }
        return true;
    }

    /** An operation slot, with what a refusal's message names. */
    private Operation acquire(int peer, int handle, long remoteOffset, long nbytes) {
        final Operation op = operations[slots.acquire()];
        op.peer = peer;
        op.handle = handle;
        op.remoteOffset = remoteOffset;
        op.nbytes = nbytes;
        return op;
    }

    /**
     * Whether the owner lets a chunk of {@code length} bytes at {@code at} reach {@code memory}, the registration its
     * handle names here (null if none): {@link #MOVED}, or why not.
     */
    static int admit(MemorySegment memory, long at, long length, boolean put) {
        if (memory == null) {
            return NOT_REGISTERED;
        }
        if (at < 0 || length < 0 || at > memory.byteSize() - length) {
            return OUT_OF_RANGE;
        }
        return put && memory.isReadOnly() ? READ_ONLY : MOVED;
    }

    private void onRegisteredPutRequest(Token token, Payload payload, Args args) {
        final long at = offset(args.get(2), args.get(3));
        final MemorySegment memory = CORE.registered(client, args.get(1));
        int status = admit(memory, at, payload.length(), true);
        if (status == MOVED) {
            try {
                payload.copyTo(0, memory, at, payload.length());
            } catch (IllegalStateException e) {
                status = NOT_REGISTERED; // its arena closed since the check
            }
        }
        token.replyShort(REG_PUT_ACK, args.get(0), status);
    }

    private void onRegisteredPutAck(Token token, Args args) {
        final Operation op = operations[args.get(0)];
        if (args.get(1) != MOVED) {
            refused(op, args.get(1), true);
        }
        complete(op, 1);
    }

    private void onRegisteredGetRequest(Token token, Args args) {
        final long at = offset(args.get(2), args.get(3));
        final MemorySegment memory = CORE.registered(client, args.get(1));
        int status = admit(memory, at, args.get(4), false);
        if (status == MOVED) {
            try {
                token.replyMedium(REG_GET_REPLY, memory, at, args.get(4), Lc.NOW, args.get(0), MOVED, args.get(2),
                    args.get(3));
                return;
            } catch (IllegalStateException e) {
                status = NOT_REGISTERED; // its arena closed since the check: nothing was sent
            }
        }
        token.replyMedium(REG_GET_REPLY, (MemorySegment) null, 0, 0, Lc.NOW, args.get(0), status, args.get(2),
            args.get(3));
    }

    private void onRegisteredGetReply(Token token, Payload payload, Args args) {
        final Operation op = operations[args.get(0)];
        if (args.get(1) == MOVED) {
            store(op, payload, offset(args.get(2), args.get(3)));
        } else {
            refused(op, args.get(1), false);
        }
        complete(op, 1);
    }

    /** Records the target's refusal of a chunk as the operation's failure, unless one is recorded already. */
    private static void refused(Operation op, int status, boolean put) {
        if (op.failure != null) {
            return;
        }
        op.failure = refusal(op.peer, put ? "put to" : "get from", op.remoteOffset, op.nbytes, op.handle, status);
    }

    /** The failure of an operation whose target refused it with {@code status}. */
    static GexException refusal(int peer, String what, long remoteOffset, long nbytes, int handle, int status) {
        final String why = switch (status) {
            case NOT_REGISTERED -> "it names no open registration there (deregistered, never registered, or its"
                + " memory's arena closed)";
            case OUT_OF_RANGE -> "the range is outside that registration";
            case READ_ONLY -> "that registration is read-only";
            case NIC_REFUSED -> "its NIC refused the access: it names no open registration there (deregistered, or its"
                + " memory's arena closed), or the range is outside that registration, or the peer failed";
            default -> "unknown status " + status;
        };
        return new GexException("rank " + peer + " refused the " + what + " bytes [" + remoteOffset + ", "
            + (remoteOffset + nbytes) + ") of its " + (handle == SEGMENT ? "segment" : "registration 0x"
            + Integer.toHexString(handle)) + ": " + why);
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

    private void onGetReply(Token token, Payload payload, Args args) {
        final Operation op = operations[args.get(0)];
        store(op, payload, offset(args.get(1), args.get(2)));
        complete(op, 1);
    }

    /**
     * Stores the chunk of a get that was read at remote offset {@code at}. The destination was checked at the call, but
     * if storing still fails (its arena was closed meanwhile) the operation completes with that failure instead of
     * staying pending or failing the poll.
     */
    private static void store(Operation op, Payload payload, long at) {
        try {
            payload.copyTo(0, op.dst, op.dstOffset + (at - op.remoteOffset), payload.length());
        } catch (RuntimeException e) {
            op.failure = e;
        }
    }

    static long offset(int high, int low) {
        return org.gexj.rma.wire.AtomicArgs.join(high, low);
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

    private void release(int id) {
        slots.release(id);
    }
}
