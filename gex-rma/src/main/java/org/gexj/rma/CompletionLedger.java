package org.gexj.rma;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The target's side of a put or get with completion that travels in more than one message: it matches the
 * operation's messages, which may arrive in any order, by source rank and the initiator's operation slot, and releases
 * the remote completion when the last of them has moved its data (Photon's out-of-order ledger test).
 *
 * <p>Each entry keeps a count: a data chunk adds one, the header (which carries the completion and says how many
 * chunks follow) subtracts their number. Before the header the count is positive after every chunk; once the header
 * is in, it reaches zero exactly when the last message is in, whichever came last. A refused message marks the entry,
 * and a marked entry releases nothing: the initiator reports the refusal. The initiator reuses a slot only after
 * every message of its operation was acknowledged, so an entry is back at zero before it is used again.
 *
 * <p>Handlers call it one at a time (the client's delivery lock); the arrays of a source are made when it first sends
 * a multi-message operation, and grow if a source's slot numbers exceed them.
 */
final class CompletionLedger {
    private static final int SLOT = Pwc.MAX_COMPLETION_DATA;

    private final Source[] sources;
    private final int slots;
    /** Chunks that arrived before their operation's header. */
    private long early;

    /** One source's entries, indexed by its operation slot. */
    private static final class Source {
        int[] count;
        boolean[] refused;
        boolean[] deliver;
        long[] ids;
        int[] lengths;
        MemorySegment data;

        Source(int slots) {
            count = new int[slots];
            refused = new boolean[slots];
            deliver = new boolean[slots];
            ids = new long[slots];
            lengths = new int[slots];
            data = Arena.ofAuto().allocate((long) slots * SLOT, 8);
        }
    }

    CompletionLedger(int ranks, int slots) {
        this.sources = new Source[ranks];
        this.slots = slots;
    }

    /** {@link #header}: the operation is complete; add its completion to the ring from the header. */
    static final int DELIVER = 0;
    /** {@link #header}: the operation is complete, and refused or without a remote completion: add nothing. */
    static final int DROP = 1;
    /**
     * {@link #header}: chunks are still to come; copy the completion data to {@link #keptData} at {@link #keptAt}
     * before the handler returns, for the last chunk to deliver.
     */
    static final int KEEP = 2;

    /**
     * The header of {@code source}'s operation {@code op}: its completion ({@code id}, {@code dataLength} bytes) and
     * the number of chunks besides it.
     *
     * @return {@link #DELIVER}, {@link #DROP} or {@link #KEEP}
     */
    synchronized int header(int source, int op, long id, int dataLength, boolean deliver, int chunks,
                            boolean refused) {
        if (chunks == 0) {
            return deliver && !refused ? DELIVER : DROP;
        }
        final Source s = source(source, op);
        s.count[op] -= chunks;
        s.refused[op] |= refused;
        if (s.count[op] == 0) {
            final boolean wasRefused = s.refused[op];
            s.refused[op] = false;
            return deliver && !wasRefused ? DELIVER : DROP;
        }
        s.deliver[op] = deliver;
        s.ids[op] = id;
        s.lengths[op] = dataLength;
        return KEEP;
    }

    /** Where a {@link #KEEP} header of {@code source} copies its completion data: at {@link #keptAt}. */
    synchronized MemorySegment keptData(int source) {
        return sources[source].data;
    }

    static long keptAt(int op) {
        return (long) op * SLOT;
    }

    /** A data chunk of {@code source}'s operation {@code op}; releases the kept completion if it was the last. */
    synchronized void chunk(int source, int op, boolean refused, CompletionRing ring) {
        final Source s = source(source, op);
        if (s.count[op]++ >= 0) {
            early++;
        }
        s.refused[op] |= refused;
        if (s.count[op] == 0) {
            if (s.deliver[op] && !s.refused[op]) {
                ring.add(source, s.ids[op], s.data, (long) op * SLOT, s.lengths[op]);
            }
            s.refused[op] = false;
        }
    }

    /** Chunks that arrived before their operation's header, since the start. */
    synchronized long earlyChunks() {
        return early;
    }

    /** Operations of {@code source} that have messages still to come (for tests). */
    synchronized int pending(int source) {
        final Source s = sources[source];
        int n = 0;
        if (s != null) {
            for (int c : s.count) {
                n += c != 0 ? 1 : 0;
            }
        }
        return n;
    }

    private Source source(int source, int op) {
        Source s = sources[source];
        if (s == null) {
            s = new Source(Math.max(slots, op + 1));
            sources[source] = s;
        } else if (op >= s.count.length) {
            grow(s, Math.max(op + 1, s.count.length * 2));
        }
        return s;
    }

    private static void grow(Source s, int slots) {
        final Source bigger = new Source(slots);
        final int old = s.count.length;
        System.arraycopy(s.count, 0, bigger.count, 0, old);
        System.arraycopy(s.refused, 0, bigger.refused, 0, old);
        System.arraycopy(s.deliver, 0, bigger.deliver, 0, old);
        System.arraycopy(s.ids, 0, bigger.ids, 0, old);
        System.arraycopy(s.lengths, 0, bigger.lengths, 0, old);
        MemorySegment.copy(s.data, 0, bigger.data, 0, (long) old * SLOT);
        s.count = bigger.count;
        s.refused = bigger.refused;
        s.deliver = bigger.deliver;
        s.ids = bigger.ids;
        s.lengths = bigger.lengths;
        s.data = bigger.data;
    }
}
