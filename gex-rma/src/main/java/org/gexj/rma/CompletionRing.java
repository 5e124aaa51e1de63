package org.gexj.rma;

import org.gexj.am.Payload;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Remote completions waiting to be probed, first in first out: the source rank, the identifier and up to
 * {@link Pwc#MAX_COMPLETION_DATA} bytes of data each. Handlers add (one at a time, under the client's delivery lock);
 * any thread takes. Starts small and doubles when full: credits ({@code GEX_PWC_CREDITS} per initiator) bound how
 * many can wait, so it stops growing once it holds what the job's initiators may send unprobed.
 */
final class CompletionRing {
    private static final int SLOT = Pwc.MAX_COMPLETION_DATA;

    private int[] ranks;
    private long[] ids;
    private int[] lengths;
    private MemorySegment data;
    private int head;
    /** Written under the lock; read without it by {@link #take} first: a probe of an empty ring locks nothing. */
    private volatile int count;

    CompletionRing(int capacity) {
        allocate(capacity);
    }

    /** Adds a completion without data. */
    synchronized void add(int rank, long id) {
        claim(rank, id, 0);
    }

    /** Adds a completion whose data is {@code length} bytes of {@code payload} from {@code at}. */
    synchronized void add(int rank, long id, Payload payload, long at, int length) {
        final int slot = claim(rank, id, length);
        payload.copyTo(at, data, (long) slot * SLOT, length);
    }

    /** Adds a completion whose data is {@code length} bytes of {@code source} from {@code at}. */
    synchronized void add(int rank, long id, MemorySegment source, long at, int length) {
        final int slot = claim(rank, id, length);
        MemorySegment.copy(source, at, data, (long) slot * SLOT, length);
    }

    /**
     * Moves the oldest completion into {@code into}.
     *
     * @return its source rank, or -1 if there was none
     */
    int take(Completion into) {
        if (count == 0) {
            return -1;
        }
        synchronized (this) {
            return takeLocked(into);
        }
    }

    private int takeLocked(Completion into) {
        if (count == 0) {
            return -1;
        }
        final int slot = head;
        final int length = lengths[slot];
        if (length > 0) {
            MemorySegment.copy(data, (long) slot * SLOT, into.data(), 0, length);
        }
        into.set(ranks[slot], ids[slot], length);
        head = (head + 1) % ids.length;
        count--;
        return ranks[slot];
    }

    int size() {
        return count;
    }

    private int claim(int rank, long id, int length) {
        if (count == ids.length) {
            grow();
        }
        final int slot = (head + count) % ids.length;
        ranks[slot] = rank;
        ids[slot] = id;
        lengths[slot] = length;
        count++;
        return slot;
    }

    /** Doubles the ring, keeping the order; only while more initiators' credits are outstanding than it held. */
    private void grow() {
        final int[] oldRanks = ranks;
        final long[] oldIds = ids;
        final int[] oldLengths = lengths;
        final MemorySegment oldData = data;
        final int capacity = oldIds.length;
        allocate(capacity * 2);
        for (int i = 0; i < count; i++) {
            final int from = (head + i) % capacity;
            ranks[i] = oldRanks[from];
            ids[i] = oldIds[from];
            lengths[i] = oldLengths[from];
            MemorySegment.copy(oldData, (long) from * SLOT, data, (long) i * SLOT, oldLengths[from]);
        }
        head = 0;
    }

    private void allocate(int capacity) {
        ranks = new int[capacity];
        ids = new long[capacity];
        lengths = new int[capacity];
        data = Arena.ofAuto().allocate((long) capacity * SLOT, 8);
    }
}
