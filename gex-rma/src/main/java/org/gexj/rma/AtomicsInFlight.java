package org.gexj.rma;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.internal.CoreAccess;
import org.gexj.internal.OperationSlots;

import java.lang.foreign.MemorySegment;

/**
 * The remote atomic operations an {@link AtomicEngine} has in flight, in slots whose index travels with the operation
 * (an AM's argument, a conduit operation's id), so that nothing is allocated per operation: what each was, where its
 * previous value goes and the event it completes. Both engines, AM's and the NIC's, end an operation here.
 *
 * <p>Threads: {@link #take} and {@link #hold} from any thread; {@link #finish} on the polling thread.
 */
final class AtomicsInFlight {
    private static final CoreAccess CORE = CoreAccess.get();

    private final OperationSlots slots;
    private final Event[] events;
    private final MemorySegment[] results;
    private final long[] resultOffsets;
    private final AtomicType[] types;
    private final AtomicOp[] ops;
    private final int[] peers;
    private final long[] offsets;

    /** {@code count} slots, waited for at most {@code timeoutNs}; {@code what} names them in the timeout's message. */
    AtomicsInFlight(Client client, int count, long timeoutNs, String what) {
        this.slots = new OperationSlots(client, count, timeoutNs, what);
        this.events = new Event[count];
        this.results = new MemorySegment[count];
        this.resultOffsets = new long[count];
        this.types = new AtomicType[count];
        this.ops = new AtomicOp[count];
        this.peers = new int[count];
        this.offsets = new long[count];
    }

    int capacity() {
        return events.length;
    }

    /** A free slot: waits (polling) for one, or with {@code immediate} returns -1 where none is free. */
    int take(boolean immediate) {
        return immediate ? slots.tryAcquire() : slots.acquire();
    }

    /** Fills {@code slot} and adds one to {@code completion}, which {@link #finish} or {@link #abandon} completes. */
    void hold(int slot, AtomicType type, AtomicOp op, int peer, long offset, MemorySegment result, long resultOffset,
              Event completion) {
        events[slot] = completion;
        results[slot] = result;
        resultOffsets[slot] = resultOffset;
        types[slot] = type;
        ops[slot] = op;
        peers[slot] = peer;
        offsets[slot] = offset;
        CORE.begin(completion, 1);
    }

    boolean holds(int slot) {
        return slot >= 0 && slot < events.length && events[slot] != null;
    }

    AtomicType type(int slot) {
        return types[slot];
    }

    /** Whether the operation in {@code slot} stores a previous value. */
    boolean fetches(int slot) {
        return results[slot] != null;
    }

    /** What the operation in {@code slot} was, for a message: "FADD on the INT64 at offset 8 of rank 1". */
    String describe(int slot) {
        return ops[slot] + " on the " + types[slot] + " at offset " + offsets[slot] + " of rank " + peers[slot];
    }

    /**
     * Ends the operation in {@code slot}: stores {@code bits}, its previous value, where the call asked (if it
     * fetches), and completes its event, or fails it with {@code failure} (not null: nothing is stored).
     */
    void finish(int slot, Throwable failure, long bits) {
        final Event e = events[slot];
        if (failure == null && results[slot] != null) {
            try {
                AtomicDomain.storeChecked(types[slot], results[slot], resultOffsets[slot], bits);
            } catch (RuntimeException storing) {
                failure = storing; // the result's arena closed meanwhile
            }
        }
        release(slot);
        if (failure == null) {
            CORE.complete(e, 1);
        } else {
            CORE.fail(e, 1, failure);
        }
    }

    /** Gives back {@code slot} of an operation that did not start, leaving its event complete (it may be reused). */
    void abandon(int slot) {
        final Event e = events[slot];
        release(slot);
        CORE.complete(e, 1);
    }

    private void release(int slot) {
        events[slot] = null;
        results[slot] = null;
        slots.release(slot);
    }
}
