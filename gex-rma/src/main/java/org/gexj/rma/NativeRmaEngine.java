package org.gexj.rma;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.GexException;
import org.gexj.GexTimeoutException;
import org.gexj.internal.CoreAccess;
import org.gexj.internal.OperationSlots;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.RmaTransport;

import java.lang.foreign.MemorySegment;

/**
 * RMA on conduits that move the data themselves ({@code Capabilities.nativeRma}): each put or get is one operation of
 * the conduit's {@link RmaTransport}, identified by a slot of a fixed table that the conduit reports back during poll,
 * so nothing is allocated per operation. When every slot is busy, or the conduit back-pressures, the initiator polls
 * until it can go on, for at most {@code GEX_BACKPRESSURE_TIMEOUT}.
 */
final class NativeRmaEngine implements RmaEngine, ConduitListener {
    private static final CoreAccess CORE = CoreAccess.get();
    private static final long OWNER = (long) CoreAccess.OWNER_RMA << CoreAccess.OWNER_SHIFT;

    private final Client client;
    private final RmaTransport transport;
    private final long timeoutNs;
    private final Event[] remote;
    private final Event[] local;
    private final OperationSlots slots;

    NativeRmaEngine(Client client, RmaTransport transport) {
        this.client = client;
        this.transport = transport;
        this.timeoutNs = client.config().getLong("GEX_BACKPRESSURE_TIMEOUT", 60, 1, 86_400) * 1_000_000_000L;
        final int slots = client.config().getInt("GEX_RMA_OPS", 1024, 1, 1 << 20);
        this.remote = new Event[slots];
        this.local = new Event[slots];
        this.slots = new OperationSlots(client, slots, timeoutNs, "RMA operation slots (GEX_RMA_OPS)");
        CORE.setRmaSink(client, CoreAccess.OWNER_RMA, this);
    }

    @Override
    public boolean synchronous() {
        return false;
    }

    @Override
    public void put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, Event completion,
                    Event localCompletion) {
        issue(true, peer, remoteOffset, src, srcOffset, nbytes, completion, localCompletion);
    }

    @Override
    public void get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, Event completion) {
        issue(false, peer, remoteOffset, dst, dstOffset, nbytes, completion, null);
    }

    /**
     * Starts a put from, or a get into, {@code local} at {@code localOffset}: takes a slot, then hands the operation
     * to the conduit until it takes it. {@code put} is a constant at each call site, so the JIT folds the choice away.
     */
    private void issue(boolean put, int peer, long remoteOffset, MemorySegment local, long localOffset, long nbytes,
                       Event completion, Event localCompletion) {
        if (nbytes == 0) {
            return;
        }
        // a put the transport copies at the call is complete locally when it returns: its local event is never begun
        final boolean copying = put && localCompletion != null && transport.copiesSource(local, nbytes);
        final int slot = start(completion, copying ? null : localCompletion);
        final long start = System.nanoTime();
        int code;
        do {
            try {
                code = copying ? transport.putCopying(peer, remoteOffset, local, localOffset, nbytes, OWNER | slot)
                    : put ? transport.put(peer, remoteOffset, local, localOffset, nbytes, OWNER | slot)
                    : transport.get(local, localOffset, peer, remoteOffset, nbytes, OWNER | slot);
            } catch (RuntimeException e) {
                finish(slot, null); // the conduit refused it: nothing started, the caller gets the exception
                throw CORE.closedOr(client, e); // another thread closed the client: named, not its conduit
            } catch (Error e) {
                finish(slot, null);
                throw e;
            }
        } while (code == Conduit.NO_ROOM && waitFor(slot, start, put, peer));
    }

    private int start(Event completion, Event localCompletion) {
        final int slot = acquire();
        remote[slot] = completion;
        local[slot] = localCompletion;
        CORE.begin(completion, 1);
        if (localCompletion != null) {
            CORE.begin(localCompletion, 1);
        }
        return slot;
    }

    /**
     * One step of waiting for the conduit to take an operation. If the wait ends in an error the operation never
     * started: its slot comes back and its events complete (without a failure: the caller gets the exception), so a
     * thread's reused blocking event is not left pending. The same holds when the conduit's call throws.
     *
     * @return true, to try the conduit again
     */
    private boolean waitFor(int slot, long start, boolean put, int peer) {
        try {
            if (System.nanoTime() - start > timeoutNs) {
                throw new GexTimeoutException("rank " + client.rank() + ": the conduit would not take an RMA "
                    + (put ? "put to rank " : "get from rank ") + peer + " for " + timeoutNs / 1_000_000_000L
                    + " s (GEX_BACKPRESSURE_TIMEOUT)");
            }
            CORE.progressWhileBlocked(client);
        } catch (RuntimeException | Error e) {
            finish(slot, null);
            throw e;
        }
        return true;
    }

    @Override
    public void onFrame(int channel, org.agrona.DirectBuffer buffer, int offset, int length) {
        throw new IllegalStateException("RMA completions only");
    }

    @Override
    public void onRmaCompletion(long operation, int status) {
        final int slot = (int) (operation & ~OWNER);
        if (slot < 0 || slot >= remote.length || remote[slot] == null) {
            throw new GexException("rank " + client.rank() + ": completion of RMA operation 0x"
                + Long.toHexString(operation) + ", which is not in flight");
        }
        finish(slot, status == Conduit.OK ? null
            : new GexException("the conduit failed RMA operation " + slot + ": " + RmaTransport.describe(status)));
    }

    private void finish(int slot, Throwable failure) {
        final Event r = remote[slot];
        final Event l = local[slot];
        remote[slot] = null;
        local[slot] = null;
        release(slot);
        if (l != null) {
            CORE.complete(l, 1);
        }
        if (failure == null) {
            CORE.complete(r, 1);
        } else {
            CORE.fail(r, 1, failure);
        }
    }

    private int acquire() {
        return slots.acquire();
    }

    private void release(int slot) {
        slots.release(slot);
    }
}
