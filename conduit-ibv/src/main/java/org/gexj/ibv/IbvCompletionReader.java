package org.gexj.ibv;

import org.gexj.ibv.ffm.Verbs;
import org.gexj.ibv.ffm.VerbsLayouts;
import org.gexj.ibv.ffm.WorkCompletions;
import org.gexj.rdma.RdmaNic;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Reads a completion queue the way the RDMA engine reads one: successful entries in batches, and an entry in error
 * alone, through {@link #pendingError}. {@code ibv_poll_cq} hands out entries in error among successful ones, and takes
 * them all off the queue, so a poll whose batch holds an error keeps that entry and those after it in a carry, in the
 * queue's order, and the next reads hand them out before polling again. Allocation-free once {@link #reserve}d.
 *
 * <p>Threads: not thread-safe; the engine reads under its lock.
 */
final class IbvCompletionReader {
    private static final long WC_BYTES = VerbsLayouts.IBV_WC.byteSize();

    /** {@code ibv_poll_cq} into the first {@code max} entries of {@code wc}: their number, or negative on error. */
    @FunctionalInterface
    interface Poll {
        int poll(int max, MemorySegment wc);
    }

    private final Poll poll;
    private WorkCompletions carry;
    private int head;
    private int end;

    IbvCompletionReader(Poll poll) {
        this.poll = poll;
    }

    /** Room to carry a batch of {@code capacity} entries (control path). */
    void reserve(Arena arena, int capacity) {
        if (carry == null || carry.capacity() < capacity) {
            final WorkCompletions larger = new WorkCompletions(arena, capacity);
            if (carry != null && head < end) {
                MemorySegment.copy(carry.segment(), head * WC_BYTES, larger.segment(), 0, (end - head) * WC_BYTES);
            }
            end -= head;
            head = 0;
            carry = larger;
        }
    }

    /**
     * Reads up to {@code count} successful entries into {@code wc}.
     *
     * @return their number; {@link RdmaNic#AGAIN} if the queue is empty; {@link RdmaNic#ERROR_AVAILABLE} if the next
     *         entry is in error ({@link #pendingError}); a negative {@code ibv_poll_cq} result
     */
    long read(WorkCompletions wc, int count) {
        final int max = Math.min(count, Math.min(wc.capacity(), carry.capacity()));
        if (head < end) {
            if (carry.status(head) != Verbs.IBV_WC_SUCCESS) {
                return RdmaNic.ERROR_AVAILABLE;
            }
            int n = 0;
            while (n < max && head + n < end && carry.status(head + n) == Verbs.IBV_WC_SUCCESS) {
                n++;
            }
            MemorySegment.copy(carry.segment(), head * WC_BYTES, wc.segment(), 0, n * WC_BYTES);
            head += n;
            return n;
        }
        final int n = poll.poll(max, wc.segment());
        if (n <= 0) {
            return n == 0 ? RdmaNic.AGAIN : n;
        }
        for (int i = 0; i < n; i++) {
            if (wc.status(i) != Verbs.IBV_WC_SUCCESS) {
                MemorySegment.copy(wc.segment(), i * WC_BYTES, carry.segment(), 0, (n - i) * WC_BYTES);
                head = 0;
                end = n - i;
                return i == 0 ? RdmaNic.ERROR_AVAILABLE : i;
            }
        }
        return n;
    }

    /** The index in {@link #carry} of the next entry if it is in error, else -1. */
    int pendingError() {
        return head < end && carry.status(head) != Verbs.IBV_WC_SUCCESS ? head : -1;
    }

    /** Where {@link #pendingError} indexes. */
    WorkCompletions carry() {
        return carry;
    }

    /** Hands out the entry in error {@link #pendingError} named. */
    void errorTaken() {
        head++;
    }
}
