package org.gexj.rdma;

import org.gexj.spi.JobHealth;

import java.lang.foreign.Arena;

/**
 * The close's drain: with manual progress a message this rank sent last (the final barrier's) may still sit in the
 * provider, and it leaves only while this rank polls. {@link #drain} sends CLOSE to every engaged peer
 * ({@link RdmaNic#engaged}: every peer, unless the NIC connects on demand) once this rank's RMA operations have
 * completed and reads the completion queue until every send completed and every engaged peer's CLOSE arrived (a peer
 * closes once it has heard every CLOSE, and then serves no operation); {@link #settle}, after a failure, only
 * waits a little for the sends in flight.
 *
 * <p>Threads: called by the closing thread, once {@link RdmaGuard#startClosing()} has stopped every other thread from
 * sending or reading the completion queue; each round runs under the {@link RdmaGuard} lock, and ends if another
 * thread's close tore the fabric down meanwhile. It reads the queue into entries of its own: a poll begun before the
 * close may still be processing its {@link RdmaPollBatch} outside the lock.
 */
final class RdmaCloseHandshake {
    /** Longest a close waits for its peers' CLOSE messages (a peer that died needs no answer). */
    private static final long CLOSE_TIMEOUT_NS = 10_000_000_000L;
    /** How long a close after a failure waits for sends in flight to complete. */
    private static final long SETTLE_NS = 1_000_000_000L;

    private final RdmaGuard guard;
    private final RdmaNic nic;
    private final RdmaContexts contexts;
    private final RdmaSendPath send;
    private final RdmaReceivePath receive;
    private final RdmaRmaEngine rma;
    private final RdmaPollBatch batch;
    private final RdmaErrorEntry errorEntry;
    private final RdmaCompletions entries;
    private final JobHealth health;
    private final int rank;
    private final int size;
    private final long timeoutNanos;

    RdmaCloseHandshake(RdmaGuard guard, RdmaNic nic, RdmaContexts contexts, RdmaSendPath send,
                       RdmaReceivePath receive, RdmaRmaEngine rma, RdmaPollBatch batch, RdmaErrorEntry errorEntry,
                      JobHealth health, Arena arena, int rank, int size, long timeoutNanos) {
        this.guard = guard;
        this.nic = nic;
        this.contexts = contexts;
        this.send = send;
        this.receive = receive;
        this.rma = rma;
        this.batch = batch;
        this.errorEntry = errorEntry;
        this.entries = nic.completions(arena, RdmaPollBatch.CAPACITY);
        this.health = health;
        this.rank = rank;
        this.size = size;
        this.timeoutNanos = timeoutNanos;
    }

    /**
     * Sends CLOSE to every peer once this rank's RMA operations have completed, then progresses until all sends
     * completed and every peer's CLOSE arrived, for at most {@code min(timeout, 10 s)}, or until the job
     * fails. Operations still in flight when the close began complete unreported; their chunks not yet submitted
     * never are.
     */
    void drain() {
        final boolean[] sent = new boolean[size];
        final boolean[] heard = receive.closeHeard();
        sent[rank] = true;
        heard[rank] = true;
        guard.lock();
        try {
            if (guard.closed()) {
                return; // closed meanwhile by another thread: its registrations are gone
            }
            rma.abandonUnsubmitted();
        } finally {
            guard.unlock();
        }
        final long deadline = System.nanoTime() + Math.min(timeoutNanos, CLOSE_TIMEOUT_NS);
        // a failure meanwhile (a peer died, the launcher ended the job) ends the handshake: nobody needs it then
        while (System.nanoTime() - deadline < 0 && !health.failed()) {
            guard.lock();
            try {
                if (guard.closed()) {
                    return; // closed meanwhile by another thread (an abort racing this close)
                }
                // counted each time: another thread's poll, still running, may have taken a peer's CLOSE, and a
                // peer connecting on demand may have become engaged meanwhile
                int toHear = 0;
                int toSend = 0;
                for (int peer = 0; peer < size; peer++) {
                    final boolean engaged = nic.engaged(peer);
                    toHear += engaged && !heard[peer] ? 1 : 0;
                    toSend += engaged && !sent[peer] ? 1 : 0;
                }
                if (toSend == 0 && toHear == 0 && send.idle() && rma.inUse() == 0) {
                    return;
                }
                send.sendBacklog();
                for (int peer = 0; peer < size && toSend > 0 && rma.inUse() == 0; peer++) {
                    if (!sent[peer] && nic.engaged(peer) && send.trySendClose(peer)) {
                        sent[peer] = true;
                        toSend--;
                    }
                }
                final long n = nic.read(entries, RdmaPollBatch.CAPACITY);
                if (n == RdmaNic.ERROR_AVAILABLE && nic.readError(errorEntry) == 1) {
                    final int index = contexts.decode(errorEntry.context());
                    if (contexts.isSend(index)) {
                        send.release(index);
                    } else if (contexts.isOperation(index)) {
                        rma.closeChunk(contexts.operationOf(index));
                    }
                }
                for (int i = 0; i < n; i++) {
                    closeEntry(entries, i, heard);
                }
                if (guard.polling() == 0 && !batch.exhausted()) {
                    // what a poll read before the close and did not get to (a handler threw): the drain's now, as no
                    // poll runs or can start (polling is counted before the check for closing)
                    for (int i = batch.head(); i < batch.count(); i++) {
                        closeEntry(batch.entries(), i, heard);
                    }
                    batch.discard();
                }
            } finally {
                guard.unlock();
            }
            Thread.onSpinWait();
        }
    }

    /**
     * After a failure: waits a little for the sends the provider holds to complete before the endpoint closes.
     * verbs;ofi_rxm crashed (SIGSEGV in fi_close) closing an endpoint that still had sends in flight.
     */
    void settle() {
        final long deadline = System.nanoTime() + SETTLE_NS;
        guard.lock();
        try {
            while (!guard.closed() && send.inFlight() > 0 && System.nanoTime() - deadline < 0) {
                final long n = nic.read(entries, RdmaPollBatch.CAPACITY);
                if (n == RdmaNic.ERROR_AVAILABLE && nic.readError(errorEntry) == 1) {
                    final int index = contexts.decode(errorEntry.context());
                    if (contexts.isSend(index)) {
                        send.release(index);
                    }
                }
                for (int i = 0; i < n; i++) {
                    final int index = contexts.decode(entries.context(i));
                    if (contexts.isSend(index)) {
                        send.release(index);
                    }
                }
                Thread.onSpinWait();
            }
        } catch (RuntimeException e) {
            // the endpoint closes next whatever happened here
        } finally {
            guard.unlock();
        }
    }

    /** One completion during the drain (under the lock): frees what it names, and notes a peer's CLOSE. */
    private void closeEntry(RdmaCompletions from, int entry, boolean[] heard) {
        final int index = contexts.decode(from.context(entry));
        if (index < 0) {
            return;
        }
        if (from.remoteData(entry)) {
            // a peer's remote write: nobody is told any more, but a receive buffer it released is posted again
            if (from.releases(entry) && contexts.isReceive(index)) {
                receive.post(contexts.receiveBufferOf(index));
            }
            return;
        }
        if (contexts.isSend(index)) {
            send.release(index);
            return;
        }
        if (contexts.isOperation(index)) {
            rma.closeChunk(contexts.operationOf(index));
            return;
        }
        final int source = receive.closeSource(contexts.receiveBufferOf(index), from.buffer(entry),
            from.length(entry));
        if (source >= 0 && !heard[source]) {
            heard[source] = true;
        }
        if (from.releases(entry)) {
            receive.post(contexts.receiveBufferOf(index));
        }
    }
}
