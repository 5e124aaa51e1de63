package org.gexj.rma;

import org.gexj.BufferDescriptor;
import org.gexj.Client;
import org.gexj.Event;
import org.gexj.GexException;
import org.gexj.GexTimeoutException;
import org.gexj.internal.CoreAccess;
import org.gexj.internal.OperationSlots;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.RegisteredRmaTransport;
import org.gexj.spi.RmaTransport;

import java.lang.foreign.MemorySegment;

/**
 * RMA on conduits that move the data themselves ({@code Capabilities.nativeRma}): each put or get is one operation of
 * the conduit's {@link RmaTransport}, identified by a slot of a fixed table that the conduit reports back during poll,
 * so nothing is allocated per operation. When every slot is busy, or the conduit back-pressures, the initiator polls
 * until it can go on, for at most {@code GEX_BACKPRESSURE_TIMEOUT}.
 *
 * <p>It also reaches peers' registered memory by key ({@link BufferDescriptor#keyed}: the conduit registered it with
 * its NIC for peers), where the owner's NIC is what refuses a closed registration or a range outside it; such a
 * failure names the rank, the registration and the range, as the owner's refusal over AM does.
 */
final class NativeRmaEngine implements RmaEngine, ConduitListener {
    private static final CoreAccess CORE = CoreAccess.get();
    private static final long OWNER = (long) CoreAccess.OWNER_RMA << CoreAccess.OWNER_SHIFT;

    private final Client client;
    private final RmaTransport transport;
    /** The transport's forms that reach registered memory by key, or null where it has none. */
    private final RegisteredRmaTransport byKey;
    private final long timeoutNs;
    private final Event[] remote;
    private final Event[] local;
    private final OperationSlots slots;
    // what a failed operation on registered memory names: its handle (0 for the segment), target, range and kind
    private final int[] handle;
    private final int[] peer;
    private final long[] offset;
    private final long[] bytes;
    private final boolean[] isPut;

    NativeRmaEngine(Client client, RmaTransport transport) {
        this.client = client;
        this.transport = transport;
        this.byKey = transport instanceof RegisteredRmaTransport registered ? registered : null;
        this.timeoutNs = client.config().getLong("GEX_BACKPRESSURE_TIMEOUT", 60, 1, 86_400) * 1_000_000_000L;
        final int slots = client.config().getInt("GEX_RMA_OPS", 1024, 1, 1 << 20);
        this.remote = new Event[slots];
        this.local = new Event[slots];
        this.slots = new OperationSlots(client, slots, timeoutNs, "RMA operation slots (GEX_RMA_OPS)");
        this.handle = new int[slots];
        this.peer = new int[slots];
        this.offset = new long[slots];
        this.bytes = new long[slots];
        this.isPut = new boolean[slots];
        CORE.setRmaSink(client, CoreAccess.OWNER_RMA, this);
    }

    @Override
    public boolean synchronous() {
        return false;
    }

    @Override
    public void put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, Event completion,
                    Event localCompletion) {
        issue(true, peer, remoteOffset, src, srcOffset, nbytes, completion, localCompletion, null);
    }

    @Override
    public void get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, Event completion) {
        issue(false, peer, remoteOffset, dst, dstOffset, nbytes, completion, null, null);
    }

    /** Whether the conduit reaches keyed registrations ({@link BufferDescriptor#keyed}) by RDMA. */
    boolean reachesByKey() {
        return byKey != null;
    }

    /**
     * A put into the registration {@code dst} describes, by key; checked by the caller. A read-only registration
     * refuses it here, with nothing sent (its NIC would refuse it too).
     */
    void putRegistered(BufferDescriptor dst, long dstOffset, MemorySegment src, long srcOffset, long nbytes,
                       Event completion, Event localCompletion) {
        if (nbytes != 0 && dst.readOnly()) {
            CORE.begin(completion, 1);
            CORE.fail(completion, 1, AmRmaEngine.refusal(dst.rank(), "put to", dstOffset, nbytes, dst.handle(),
                AmRmaEngine.READ_ONLY));
            return;
        }
        issue(true, dst.rank(), dstOffset, src, srcOffset, nbytes, completion, localCompletion, dst);
    }

    /** A get from the registration {@code src} describes, by key; checked by the caller. */
    void getRegistered(MemorySegment dst, long dstOffset, BufferDescriptor src, long srcOffset, long nbytes,
                       Event completion) {
        issue(false, src.rank(), srcOffset, dst, dstOffset, nbytes, completion, null, src);
    }

    /**
     * Starts a put from, or a get into, {@code local} at {@code localOffset}: takes a slot, then hands the operation
     * to the conduit until it takes it. The remote memory is {@code peer}'s segment at {@code remoteOffset}, or with
     * {@code registration} that registration at that offset, by its key. {@code put} and whether
     * {@code registration} is null are constants at each call site, so the JIT folds the choices away.
     */
    private void issue(boolean put, int peer, long remoteOffset, MemorySegment local, long localOffset, long nbytes,
                       Event completion, Event localCompletion, BufferDescriptor registration) {
        if (nbytes == 0) {
            return;
        }
        // a put the transport copies at the call is complete locally when it returns: its local event is never begun
        final boolean copying = put && registration == null && localCompletion != null
            && transport.copiesSource(local, nbytes);
        final int slot = start(completion, copying ? null : localCompletion);
        if (registration != null) {
            handle[slot] = registration.handle(); // what a failure names
            this.peer[slot] = peer;
            offset[slot] = remoteOffset;
            bytes[slot] = nbytes;
            isPut[slot] = put;
        }
        final long start = System.nanoTime();
        int code;
        do {
            try {
                final long operation = OWNER | slot;
                if (registration != null) {
                    code = put ? byKey.putRegistered(peer, registration.address(), registration.key(),
                        remoteOffset, local, localOffset, nbytes, operation)
                        : byKey.getRegistered(local, localOffset, peer, registration.address(), registration.key(),
                            remoteOffset, nbytes, operation);
                } else {
                    code = copying ? transport.putCopying(peer, remoteOffset, local, localOffset, nbytes, operation)
                        : put ? transport.put(peer, remoteOffset, local, localOffset, nbytes, operation)
                        : transport.get(local, localOffset, peer, remoteOffset, nbytes, operation);
                }
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
        finish(slot, status == Conduit.OK ? null : failure(slot, status));
    }

    private Throwable failure(int slot, int status) {
        if (handle[slot] == 0) {
            return new GexException("the conduit failed RMA operation " + slot + ": " + RmaTransport.describe(status));
        }
        final GexException e = AmRmaEngine.refusal(peer[slot], isPut[slot] ? "put to" : "get from", offset[slot],
            bytes[slot], handle[slot], AmRmaEngine.NIC_REFUSED);
        e.addSuppressed(new GexException(RmaTransport.describe(status)));
        return e;
    }

    private void finish(int slot, Throwable failure) {
        handle[slot] = 0;
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
