package org.gexj.rma;

import org.gexj.BufferDescriptor;
import org.gexj.Client;
import org.gexj.GexException;
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
import org.gexj.spi.RmaTransport;

import java.lang.foreign.MemorySegment;

import static org.gexj.rma.AmRmaEngine.MOVED;
import static org.gexj.rma.AmRmaEngine.NOT_REGISTERED;
import static org.gexj.rma.AmRmaEngine.SEGMENT;
import static org.gexj.rma.AmRmaEngine.admit;
import static org.gexj.rma.AmRmaEngine.offset;

/**
 * Put and get with completion ({@link Pwc}) over active messages, on every conduit.
 *
 * <p>A put into the segment without completion data is one AM Long whose args carry the completion: the conduit's
 * Long protocol moves the data (RDMA on ofi and ibv, one copy on smp), and its handler runs once the data is in place.
 * Otherwise the put's first message, the header (a Medium request), carries the remote completion (identifier and
 * data) and as much of the payload as fits beside it: a put that fits is one message (Photon's packed PWC). A larger
 * one sends the rest in chunks (Longs into the segment, Mediums into a registration), which the target matches with
 * the header in any order ({@link CompletionLedger}, Photon's 2-put ledger PWC); the remote completion appears once
 * every chunk is stored. A get's header asks for the first chunk and
 * carries the completion; each chunk is answered by a Medium reply with the data, and the producer's completion
 * appears once every chunk has been read. Every message is answered with a status; a refused one writes nothing, and
 * fails the operation at the initiator and drops its remote completion.
 *
 * <p>The initiator's local completion appears when every message is answered: the data is at the target (put), or
 * in the destination (get). An operation holds its slot ({@code GEX_PWC_OPS}) until its local completion is probed, so
 * that the local queue is bounded; one with {@link Pwc#NO_LCE} frees it at its last answer. Remote completions are
 * bounded by credits: {@code GEX_PWC_CREDITS} toward each peer, one per operation with a remote completion, returned
 * in batches as the target probes them. An initiator with no credit polls until one returns, and throws after
 * {@code GEX_BACKPRESSURE_TIMEOUT}, naming the peer that does not probe.
 */
final class PwcEngine {
    private static final CoreAccess CORE = CoreAccess.get();

    static final int PWC_HEADER = 72;
    static final int PWC_CHUNK = 73;
    static final int PWC_ACK = 74;
    static final int GWC_HEADER = 75;
    static final int GWC_CHUNK = 76;
    static final int GWC_REPLY = 77;
    static final int CREDITS = 78;
    static final int PWC_LONG = 79;
    static final int PWC_LONG_CHUNK = 80;
    /**
     * A header's args: op, handle, offset (2 ints); a put's remote id (2) and data length, or a get's first chunk's
     * length and remote id (2); the number of chunks besides the header; flags.
     */
    private static final int HEADER_ARGS = 9;
    /** The op slot of a put that wants no answer: one message into the segment with {@link Pwc#NO_LCE}. */
    private static final int QUIET = -1;

    private final Am am;
    private final Client client;
    /** Where a peer's segment is mapped here (smp), its RMA, which copies; else null. */
    private final Rma direct;
    private final long putChunk;
    private final long getChunk;
    private final long longChunk;
    private final PwcOperation[] operations;
    private final OperationSlots slots;
    /** Operation slots whose local completion waits to be probed, oldest first. */
    private final int[] localQueue;
    private int localHead;
    /** Written under {@code localQueue}'s lock; read without it first by a probe. */
    private volatile int localCount;
    private final CompletionRing remote = new CompletionRing(64);
    private final CompletionLedger ledger;
    private final PwcCredits credits;
    private final long timeoutNs;
    private final ThreadLocal<int[]> args = ThreadLocal.withInitial(() -> new int[HEADER_ARGS]);

    /** Where the conduit's RDMA moves the data (ofi, ibv): {@link PwcRdma}; else null. */
    private final PwcRdma rdma;

    /**
     * @param direct    where a peer's segment is mapped here (smp), its RMA; else null
     * @param transport where the data may go by the conduit's RDMA, its transport; else null
     */
    PwcEngine(Am am, Rma direct, RmaTransport transport) {
        this.am = am;
        this.client = am.client();
        this.direct = direct;
        final int count = client.config().getInt("GEX_PWC_OPS", 256, 1, 1 << 20);
        this.timeoutNs = client.config().getLong("GEX_BACKPRESSURE_TIMEOUT", 60, 1, 86_400) * 1_000_000_000L;
        this.operations = new PwcOperation[count];
        for (int i = 0; i < count; i++) {
            operations[i] = new PwcOperation(i);
        }
        this.slots = new OperationSlots(client, count, timeoutNs,
            "put/get-with-completion slots (GEX_PWC_OPS; a slot is held until its local completion is probed)");
        this.localQueue = new int[count];
        this.ledger = new CompletionLedger(client.size(), count);
        this.credits = new PwcCredits(am, CREDITS, client.config().getInt("GEX_PWC_CREDITS", 256, 1, 1 << 20),
            timeoutNs);
        this.putChunk = am.lubRequestMedium();
        this.getChunk = am.lubReplyMedium();
        this.longChunk = am.lubRequestLong();
        final AmAccess access = AmAccess.get();
        access.registerSystem(am, PWC_HEADER, AmHandler.mediumRequest(HEADER_ARGS, this::onPutHeader).named("pwc"));
        access.registerSystem(am, PWC_CHUNK, AmHandler.mediumRequest(4, this::onPutChunk).named("pwc-chunk"));
        access.registerSystem(am, PWC_ACK, AmHandler.shortReply(2, this::onAnswer).named("pwc-ack"));
        access.registerSystem(am, GWC_HEADER, AmHandler.mediumRequest(HEADER_ARGS, this::onGetHeader).named("gwc"));
        access.registerSystem(am, GWC_CHUNK, AmHandler.shortRequest(5, this::onGetChunk).named("gwc-chunk"));
        access.registerSystem(am, GWC_REPLY, AmHandler.mediumReply(4, this::onGetReply).named("gwc-reply"));
        access.registerSystem(am, CREDITS, AmHandler.shortRequest(1, credits::onCredits).named("pwc-credits"));
        access.registerSystem(am, PWC_LONG, AmHandler.longRequest(4, this::onPutLong).named("pwc-long"));
        access.registerSystem(am, PWC_LONG_CHUNK,
            AmHandler.longRequest(1, this::onPutLongChunk).named("pwc-long-chunk"));
        this.rdma = transport == null ? null : new PwcRdma(client, this, operations, transport, longChunk, timeoutNs);
        if (rdma != null) {
            access.setRemoteWriteSink(am, rdma);
        }
    }

    // ---------------------------------------------------------------------------------------------- initiator

    /** A put into {@code peer}'s registration {@code handle} (or segment) at {@code at}; checked by the caller. */
    void put(int peer, int handle, long at, MemorySegment src, long srcOffset, long nbytes, long localId,
             long remoteId, MemorySegment data, long dataOffset, int dataLength, int flags, BufferDescriptor dst) {
        // the segment is every conduit's AM Long target: its best Long protocol moves the data (RDMA on ofi and ibv,
        // one copy on smp), and a completion without data rides in the Long's args
        final boolean longs = handle == SEGMENT;
        final boolean single = longs && dataLength == 0 && nbytes <= longChunk;
        final boolean packed = nbytes <= putChunk - dataLength;
        if (longs && (flags & Pwc.NO_LCE) != 0 && (single || packed)) {
            // one message into the segment, whose range the call checked: the target cannot refuse it and no local
            // completion is wanted, so nothing is kept here and nothing is answered (an AM's cost, no more)
            if ((flags & Pwc.NO_RCE) == 0) {
                credits.take(peer);
            }
            if (single) {
                am.requestLong(peer, PWC_LONG, src, srcOffset, nbytes, at, Lc.NOW, QUIET, (int) (remoteId >>> 32),
                    (int) remoteId, flags);
            } else {
                sendHeader(peer, header(QUIET, handle, at, (int) (remoteId >>> 32), (int) remoteId, dataLength, 0,
                    flags), src, srcOffset, nbytes, data, dataOffset, dataLength);
            }
            return;
        }
        final PwcOperation op = begin(peer, handle, at, nbytes, localId, flags, true);
        if (!single && !packed && rdma != null && rdma.writes(dst)) {
            // the header without data, then the data written by the NIC, each write marked by its immediate
            final int writes = rdma.writesOf(nbytes);
            op.remaining = 1 + writes;
            try {
                sendHeader(peer, header(op.id, handle, at, (int) (remoteId >>> 32), (int) remoteId, dataLength, writes,
                    flags), src, srcOffset, 0, data, dataOffset, dataLength);
                rdma.write(op, dst, at, src, srcOffset, nbytes);
            } catch (RuntimeException e) {
                throw abandoned(op, e);
            }
            return;
        }
        if (single) {
            op.remaining = 1;
            try {
                am.requestLong(peer, PWC_LONG, src, srcOffset, nbytes, at, Lc.NOW, op.id, (int) (remoteId >>> 32),
                    (int) remoteId, flags);
            } catch (RuntimeException e) {
                throw abandoned(op, e);
            }
            return;
        }
        final long first = packed ? nbytes : longs ? 0 : putChunk - dataLength;
        final long chunk = longs ? longChunk : putChunk;
        final int chunks = (int) ((nbytes - first + chunk - 1) / chunk);
        op.remaining = 1 + chunks;
        final int[] a = header(op.id, handle, at, (int) (remoteId >>> 32), (int) remoteId, dataLength, chunks, flags);
        try {
            sendHeader(peer, a, src, srcOffset, first, data, dataOffset, dataLength);
            for (long done = first; done < nbytes; done += chunk) {
                final long to = at + done;
                final long length = Math.min(chunk, nbytes - done);
                if (longs) {
                    am.requestLong(peer, PWC_LONG_CHUNK, src, srcOffset + done, length, to, Lc.NOW, op.id);
                } else {
                    am.requestMedium(peer, PWC_CHUNK, src, srcOffset + done, length, Lc.NOW, op.id, handle,
                        (int) (to >>> 32), (int) to);
                }
            }
        } catch (RuntimeException e) {
            throw abandoned(op, e);
        }
    }

    /** A put's header: the completion data, then the first {@code first} bytes of the put. */
    private void sendHeader(int peer, int[] a, MemorySegment src, long srcOffset, long first, MemorySegment data,
                            long dataOffset, int dataLength) {
        if (dataLength == 0) {
            am.requestMedium(peer, PWC_HEADER, src, srcOffset, first, Lc.NOW, 0, a, HEADER_ARGS);
            return;
        }
        final SrcDesc d = am.prepareRequestMedium(peer, null, dataLength + first, dataLength + first, null, 0,
            HEADER_ARGS);
        d.buffer().putBytes(0, data, dataOffset, dataLength);
        if (first > 0) {
            d.buffer().putBytes(dataLength, src, srcOffset, (int) first);
        }
        d.commit(PWC_HEADER, dataLength + first, a, HEADER_ARGS);
    }

    /** A get from {@code peer}'s registration {@code handle} (or segment) at {@code at}; checked by the caller. */
    void get(MemorySegment dst, long dstOffset, int peer, int handle, long at, long nbytes, long localId,
             long remoteId, MemorySegment data, long dataOffset, int dataLength, int flags, BufferDescriptor src) {
        if (handle == SEGMENT && direct != null) {
            getDirectly(dst, dstOffset, peer, at, nbytes, localId, remoteId, data, dataOffset, dataLength, flags);
            return;
        }
        final PwcOperation op = begin(peer, handle, at, nbytes, localId, flags, false);
        op.dst = dst;
        op.dstOffset = dstOffset;
        if (nbytes > getChunk && rdma != null && rdma.reads(peer, src)) {
            // one read by the NIC rather than a reply per chunk; the producer's completion goes once it is done
            op.remaining = 1;
            try {
                rdma.read(op, src);
                if ((flags & Pwc.NO_RCE) != 0) {
                    return; // answered when the read completes
                }
                if (rdma.awaitRead(op)) {
                    sendGetCompletion(peer, handle, at, remoteId, data, dataOffset, dataLength, flags);
                    answered(op, MOVED);
                }
            } catch (RuntimeException e) {
                throw abandoned(op, e);
            }
            return;
        }
        final int chunks = (int) Math.max(0, (nbytes - 1) / getChunk);
        op.remaining = 1 + chunks;
        final int first = (int) Math.min(getChunk, nbytes);
        final int[] a = header(op.id, handle, at, first, (int) (remoteId >>> 32), (int) remoteId, chunks, flags);
        try {
            am.requestMedium(peer, GWC_HEADER, data, dataOffset, dataLength, Lc.NOW, 0, a, HEADER_ARGS);
            for (long done = getChunk; done < nbytes; done += getChunk) {
                final long from = at + done;
                a[2] = (int) (from >>> 32);
                a[3] = (int) from;
                a[4] = (int) Math.min(getChunk, nbytes - done);
                am.requestShort(peer, GWC_CHUNK, 0, a, 5);
            }
        } catch (RuntimeException e) {
            throw abandoned(op, e);
        }
    }

    /**
     * A get from a peer's segment mapped here (smp): the data is copied now, then the producer is told in one message
     * that nothing answers, and the local completion is queued at once.
     */
    private void getDirectly(MemorySegment dst, long dstOffset, int peer, long at, long nbytes, long localId,
                             long remoteId, MemorySegment data, long dataOffset, int dataLength, int flags) {
        if ((flags & Pwc.NO_RCE) == 0) {
            credits.take(peer);
        }
        direct.get(dst, dstOffset, peer, at, nbytes);
        if ((flags & Pwc.NO_RCE) == 0) {
            sendGetCompletion(peer, SEGMENT, at, remoteId, data, dataOffset, dataLength, flags);
        }
        if ((flags & Pwc.NO_LCE) == 0) {
            queueLocal(slot(peer, SEGMENT, at, nbytes, localId, flags, false));
        }
    }

    /**
     * Tells the producer of a get whose data has already moved that its memory was read: a GWC header that moves
     * nothing and that no reply answers.
     */
    private void sendGetCompletion(int peer, int handle, long at, long remoteId, MemorySegment data, long dataOffset,
                                   int dataLength, int flags) {
        am.requestMedium(peer, GWC_HEADER, data, dataOffset, dataLength, Lc.NOW, 0,
            header(QUIET, handle, at, 0, (int) (remoteId >>> 32), (int) remoteId, 0, flags), HEADER_ARGS);
    }

    /** Takes a credit toward {@code peer} if the operation has a remote completion, and a slot. */
    private PwcOperation begin(int peer, int handle, long at, long nbytes, long localId, int flags, boolean put) {
        if ((flags & Pwc.NO_RCE) == 0) {
            credits.take(peer);
        }
        return slot(peer, handle, at, nbytes, localId, flags, put);
    }

    private PwcOperation slot(int peer, int handle, long at, long nbytes, long localId, int flags, boolean put) {
        final PwcOperation op = operations[slots.acquire()];
        op.put = put;
        op.peer = peer;
        op.handle = handle;
        op.remoteOffset = at;
        op.nbytes = nbytes;
        op.localId = localId;
        op.flags = flags;
        op.failure = null;
        return op;
    }

    /** The thread's header args: op slot or {@link #QUIET}, handle, offset (2 ints), {@code a4..a6}, chunks, flags. */
    private int[] header(int op, int handle, long at, int a4, int a5, int a6, int chunks, int flags) {
        final int[] a = args.get();
        a[0] = op;
        a[1] = handle;
        a[2] = (int) (at >>> 32);
        a[3] = (int) at;
        a[4] = a4;
        a[5] = a5;
        a[6] = a6;
        a[7] = chunks;
        a[8] = flags;
        return a;
    }

    /**
     * A send failed part-way (a dead peer, or back-pressure that outlasted its timeout): the target may have part of
     * the operation, so its slot and credit are not reused, which would mismatch the target's count.
     */
    private static RuntimeException abandoned(PwcOperation op, RuntimeException e) {
        op.failure = e;
        return e;
    }

    // ---------------------------------------------------------------------------------------------- target

    private MemorySegment memory(int handle) {
        if (handle == SEGMENT) {
            return client.hasSegment() ? client.segment().memory() : null;
        }
        return CORE.registered(client, handle);
    }

    /** Stores {@code nbytes} of {@code payload} from {@code from} at {@code at} of {@code handle}'s memory. */
    private int store(int handle, long at, Payload payload, long from, long nbytes) {
        if (nbytes == 0) {
            return MOVED; // a completion alone touches no memory
        }
        final MemorySegment memory = memory(handle);
        final int status = admit(memory, at, nbytes, true);
        if (status != MOVED) {
            return status;
        }
        try {
            payload.copyTo(from, memory, at, nbytes);
            return MOVED;
        } catch (IllegalStateException e) {
            return NOT_REGISTERED; // its arena closed since the check
        }
    }

    private void onPutHeader(Token token, Payload payload, Args args) {
        final int dataLength = args.get(6);
        final int status = store(args.get(1), offset(args.get(2), args.get(3)), payload, dataLength,
            payload.length() - dataLength);
        complete(token.sourceRank(), args.get(0), offset(args.get(4), args.get(5)), payload, dataLength, args.get(8),
            args.get(7), status);
        if (args.get(0) != QUIET) {
            token.replyShort(PWC_ACK, args.get(0), status);
        }
    }

    /**
     * The header's part of an operation's remote completion: delivered now if every chunk is in (from the header's
     * first {@code dataLength} bytes), else kept for the last chunk.
     */
    private void complete(int source, int op, long id, Payload payload, int dataLength, int flags, int chunks,
                          int status) {
        switch (ledger.header(source, op, id, dataLength, (flags & Pwc.NO_RCE) == 0, chunks, status != MOVED)) {
            case CompletionLedger.DELIVER -> remote.add(source, id, payload, 0, dataLength);
            case CompletionLedger.KEEP -> payload.copyTo(0, ledger.keptData(source), CompletionLedger.keptAt(op),
                dataLength);
            default -> { }
        }
    }

    private void onPutChunk(Token token, Payload payload, Args args) {
        final int status = store(args.get(1), offset(args.get(2), args.get(3)), payload, 0, payload.length());
        ledger.chunk(token.sourceRank(), args.get(0), status != MOVED, remote);
        token.replyShort(PWC_ACK, args.get(0), status);
    }

    /** A whole put into the segment, its completion in the args: the data is in place when this runs. */
    private void onPutLong(Token token, Payload payload, Args args) {
        if ((args.get(3) & Pwc.NO_RCE) == 0) {
            remote.add(token.sourceRank(), offset(args.get(1), args.get(2)));
        }
        if (args.get(0) != QUIET) {
            token.replyShort(PWC_ACK, args.get(0), MOVED);
        }
    }

    private void onPutLongChunk(Token token, Payload payload, Args args) {
        ledger.chunk(token.sourceRank(), args.get(0), false, remote);
        token.replyShort(PWC_ACK, args.get(0), MOVED);
    }

    /** A data write of {@code source}'s operation {@code op} landed ({@link PwcRdma}). */
    void chunkLanded(int source, int op, boolean refused) {
        ledger.chunk(source, op, refused, remote);
    }

    private void onGetHeader(Token token, Payload payload, Args args) {
        if (args.get(0) == QUIET) { // the initiator read the segment itself: only the completion comes
            complete(token.sourceRank(), QUIET, offset(args.get(5), args.get(6)), payload, (int) payload.length(),
                args.get(8), 0, MOVED);
            return;
        }
        final int status = serve(token, args.get(0), args.get(1), args.get(2), args.get(3), args.get(4));
        complete(token.sourceRank(), args.get(0), offset(args.get(5), args.get(6)), payload, (int) payload.length(),
            args.get(8), args.get(7), status);
    }

    private void onGetChunk(Token token, Args args) {
        final int status = serve(token, args.get(0), args.get(1), args.get(2), args.get(3), args.get(4));
        ledger.chunk(token.sourceRank(), args.get(0), status != MOVED, remote);
    }

    /** Answers a get chunk with its data, or with why not; the memory has been read when this returns. */
    private int serve(Token token, int op, int handle, int high, int low, int length) {
        int status = MOVED;
        if (length > 0) {
            final long at = offset(high, low);
            final MemorySegment memory = memory(handle);
            status = admit(memory, at, length, false);
            if (status == MOVED) {
                try {
                    token.replyMedium(GWC_REPLY, memory, at, length, Lc.NOW, op, MOVED, high, low);
                    return MOVED;
                } catch (IllegalStateException e) {
                    status = NOT_REGISTERED; // its arena closed since the check: nothing was sent
                }
            }
        }
        token.replyMedium(GWC_REPLY, (MemorySegment) null, 0, 0, Lc.NOW, op, status, high, low);
        return status;
    }

    // ---------------------------------------------------------------------------------------------- answers

    private void onAnswer(Token token, Args args) {
        answered(operations[args.get(0)], args.get(1));
    }

    private void onGetReply(Token token, Payload payload, Args args) {
        final PwcOperation op = operations[args.get(0)];
        if (args.get(1) == MOVED && payload.length() > 0) {
            try {
                payload.copyTo(0, op.dst, op.dstOffset + (offset(args.get(2), args.get(3)) - op.remoteOffset),
                    payload.length());
            } catch (RuntimeException e) {
                op.failure = e; // the destination's arena was closed meanwhile
            }
        }
        answered(op, args.get(1));
    }

    /** One message of {@code op} answered; the last queues its local completion or frees its slot. */
    void answered(PwcOperation op, int status) {
        if (status != MOVED && op.failure == null) {
            op.failure = AmRmaEngine.refusal(op.peer, op.put ? "put with completion to" : "get with completion from",
                op.remoteOffset, op.nbytes, op.handle, status);
        }
        if ((int) PwcOperation.REMAINING.getAndAdd(op, -1) != 1) {
            return;
        }
        if (op.failure == null && (op.flags & Pwc.NO_LCE) != 0) {
            release(op);
            return;
        }
        queueLocal(op);
    }

    private void queueLocal(PwcOperation op) {
        synchronized (localQueue) {
            localQueue[(localHead + localCount++) % localQueue.length] = op.id;
        }
    }

    private void release(PwcOperation op) {
        op.dst = null;
        slots.release(op.id);
    }

    // ---------------------------------------------------------------------------------------------- probes

    /** @see Pwc#probeLocal */
    boolean probeLocal(Completion into) {
        if (takeLocal(into)) {
            return true;
        }
        client.poll();
        return takeLocal(into);
    }

    /** @see Pwc#awaitLocal */
    void awaitLocal(Completion into) {
        CORE.resetBackoff(client);
        while (!takeLocal(into)) {
            CORE.progressWhileBlocked(client); // polls, and backs off only while nothing arrives
        }
    }

    /**
     * Takes the oldest local completion into {@code into}, without polling.
     *
     * @throws GexException if its operation failed
     */
    private boolean takeLocal(Completion into) {
        final int id = takeLocal();
        if (id < 0) {
            return false;
        }
        final PwcOperation op = operations[id];
        final Throwable failure = op.failure;
        final int peer = op.peer;
        final long localId = op.localId;
        final boolean put = op.put;
        if (op.failedWrites == 0) {
            release(op);
        } else {
            op.dst = null; // retired: the target's ledger waits for writes that never came, under this slot
        }
        if (failure != null) {
            throw new GexException("the " + (put ? "put" : "get") + " with completion of local id " + localId
                + " failed: " + failure.getMessage(), failure);
        }
        into.set(peer, localId, 0);
        return true;
    }

    private int takeLocal() {
        if (localCount == 0) {
            return -1; // the probe loop's fast path, without the lock
        }
        synchronized (localQueue) {
            if (localCount == 0) {
                return -1;
            }
            final int id = localQueue[localHead];
            localHead = (localHead + 1) % localQueue.length;
            localCount--;
            return id;
        }
    }

    /** @see Pwc#probeRemote */
    boolean probeRemote(Completion into) {
        if (takeRemote(into)) {
            return true;
        }
        client.poll();
        return takeRemote(into);
    }

    /** @see Pwc#awaitRemote */
    void awaitRemote(Completion into) {
        CORE.resetBackoff(client);
        while (!takeRemote(into)) {
            CORE.progressWhileBlocked(client);
        }
    }

    /** Takes the oldest remote completion into {@code into}, without polling, and counts its credit returned. */
    private boolean takeRemote(Completion into) {
        final int source = remote.take(into);
        if (source < 0) {
            return false;
        }
        credits.returned(source);
        return true;
    }

    /** @see Pwc#outOfOrderChunks */
    long earlyChunks() {
        return ledger.earlyChunks();
    }

    /** Remote completions waiting to be probed. */
    int remoteWaiting() {
        return remote.size();
    }
}
