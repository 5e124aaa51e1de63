package org.gexj.rdma;

import java.lang.foreign.MemorySegment;

/**
 * The RMA operations of one rank in flight: a fixed table of slots, each the libfabric context of its operation's
 * writes or reads (one per chunk of at most the provider's largest message). A slot is taken when an operation starts
 * and freed when its last chunk has completed. An operation on heap memory is staged: it moves through one bounce
 * buffer of the conduit, one chunk at a time. Not thread-safe: the conduit's lock guards it; only
 * {@link #mayResume()} may be read without it.
 */
final class RdmaOperations {
    static final int PUT = 1;
    static final int GET = 2;
    static final int PUT_IMMEDIATE = 3;
    /** One value changed atomically by the NIC ({@link RdmaAtomics}): a single "chunk", never staged or resumed. */
    static final int ATOMIC = 4;

    final int capacity;
    final int[] kind;
    final int[] peer;
    final long[] operation;
    final long[] localAddress;
    final long[] remoteAddress;
    final long[] key;
    final long[] immediate;
    final long[] total;
    final long[] submitted;
    final int[] outstanding;
    final int[] status;
    final long[] descriptor;
    /** A registration made for this operation alone (local memory outside every registered region), or null. */
    final RdmaRegion[] ownRegistration;
    /** The {@link RdmaRegistrationCache} entry whose registration the operation uses, or -1. */
    final int[] cacheEntry;
    /** The bounce buffer a staged operation moves through, or -1 (the operation reads or writes its memory itself). */
    final int[] bounce;
    /** A staged operation's heap memory and the offset of its first byte there; null when not staged. */
    final MemorySegment[] heap;
    final long[] heapOffset;
    /** Slots with chunks not yet submitted (the endpoint was busy), oldest first. */
    private final int[] resume;
    private int resumeHead;
    private int resumeCount;
    /** {@code resumeCount}, written under the conduit's lock, read without it by {@link #mayResume()}. */
    private volatile int resumeWaiting;
    private final int[] free;
    private int freeCount;

    RdmaOperations(int capacity) {
        this.capacity = capacity;
        kind = new int[capacity];
        peer = new int[capacity];
        operation = new long[capacity];
        localAddress = new long[capacity];
        remoteAddress = new long[capacity];
        key = new long[capacity];
        immediate = new long[capacity];
        total = new long[capacity];
        submitted = new long[capacity];
        outstanding = new int[capacity];
        status = new int[capacity];
        descriptor = new long[capacity];
        ownRegistration = new RdmaRegion[capacity];
        cacheEntry = new int[capacity];
        bounce = new int[capacity];
        heap = new MemorySegment[capacity];
        heapOffset = new long[capacity];
        resume = new int[capacity];
        free = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = capacity - 1 - i;
        }
        java.util.Arrays.fill(bounce, -1);
        java.util.Arrays.fill(cacheEntry, -1);
        freeCount = capacity;
    }

    /** Operations started and not yet completed. */
    int inUse() {
        return capacity - freeCount;
    }

    /** @return a free slot, or -1 */
    int take() {
        return freeCount == 0 ? -1 : free[--freeCount];
    }

    void release(int slot) {
        descriptor[slot] = 0;
        ownRegistration[slot] = null;
        cacheEntry[slot] = -1;
        heap[slot] = null;
        bounce[slot] = -1;
        free[freeCount++] = slot;
    }

    int inFlight() {
        return capacity - freeCount;
    }

    /** Which slots are free (for the close, which abandons the operations that wait). */
    boolean[] freeSlots() {
        final boolean[] f = new boolean[capacity];
        for (int i = 0; i < freeCount; i++) {
            f[free[i]] = true;
        }
        return f;
    }

    /** Forgets the operations waiting to submit chunks (the close). */
    void clearResume() {
        resumeHead = 0;
        resumeCount = 0;
        resumeWaiting = 0;
    }

    void queueResume(int slot) {
        resume[(resumeHead + resumeCount++) % capacity] = slot;
        resumeWaiting = resumeCount;
    }

    /**
     * Without the lock: whether an operation may wait to submit chunks. A slot queued before this read is seen; one
     * queued after it, by the next read. Take the lock and {@link #peekResume()} to act on it.
     */
    boolean mayResume() {
        return resumeWaiting > 0;
    }

    /** @return the oldest slot waiting to submit more chunks, or -1 */
    int peekResume() {
        return resumeCount == 0 ? -1 : resume[resumeHead];
    }

    void popResume() {
        resumeHead = (resumeHead + 1) % capacity;
        resumeCount--;
        resumeWaiting = resumeCount;
    }

    boolean waiting(int slot) {
        return submitted[slot] < total[slot];
    }

    boolean staged(int slot) {
        return bounce[slot] >= 0;
    }
}
