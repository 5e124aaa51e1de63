package org.gexj.rdma;

import java.lang.foreign.Arena;

/**
 * The completion entries a poll read from the queue and has not processed yet: a handler's nested poll continues
 * where its caller was. Used by the polling thread alone (one at a time); the close takes what is left when no poll
 * runs, under the {@link RdmaGuard} lock.
 */
final class RdmaPollBatch {
    /** Entries read at once. */
    static final int CAPACITY = 32;

    private final RdmaCompletions entries;
    private int head;
    private int count;

    RdmaPollBatch(RdmaNic nic, Arena arena) {
        this.entries = nic.completions(arena, CAPACITY);
    }

    RdmaCompletions entries() {
        return entries;
    }

    /** Whether every entry read has been taken. */
    boolean exhausted() {
        return head == count;
    }

    /** {@code n} entries were read into {@link #entries()}. */
    void filled(int n) {
        head = 0;
        count = n;
    }

    /** @return the next entry to process, now taken */
    int next() {
        return head++;
    }

    int head() {
        return head;
    }

    int count() {
        return count;
    }

    /** The close took the entries left. */
    void discard() {
        head = count;
    }
}
