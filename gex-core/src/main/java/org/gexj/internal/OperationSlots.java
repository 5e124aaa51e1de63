package org.gexj.internal;

import org.gexj.Client;
import org.gexj.GexTimeoutException;

/**
 * A fixed set of slots for operations in flight, whose index travels in messages or operation ids so that nothing is
 * allocated per operation. When every slot is busy, {@link #acquire()} polls (running handlers, which retire
 * operations) for at most the timeout, then throws. Any thread acquires and releases.
 */
public final class OperationSlots {
    private static final CoreAccess CORE = CoreAccess.get();

    private final Client client;
    private final int[] free;
    private final long timeoutNs;
    /** What the slots are and which setting sizes them, for the timeout's message. */
    private final String what;
    private int freeCount;

    /**
     * @param what e.g. "RMA operation slots (GEX_RMA_OPS)"
     */
    public OperationSlots(Client client, int slots, long timeoutNs, String what) {
        this.client = client;
        this.free = new int[slots];
        for (int i = 0; i < slots; i++) {
            free[i] = slots - 1 - i;
        }
        this.freeCount = slots;
        this.timeoutNs = timeoutNs;
        this.what = what;
    }

    public int capacity() {
        return free.length;
    }

    /**
     * @return a free slot
     * @throws GexTimeoutException if every slot stayed busy for the timeout
     */
    public int acquire() {
        synchronized (this) {
            if (freeCount > 0) {
                return free[--freeCount];
            }
        }
        final long start = System.nanoTime();
        CORE.resetBackoff(client);
        while (true) {
            synchronized (this) {
                if (freeCount > 0) {
                    return free[--freeCount];
                }
            }
            CORE.progressWhileBlocked(client);
            if (System.nanoTime() - start > timeoutNs) {
                throw new GexTimeoutException("rank " + client.rank() + ": all " + free.length + " " + what
                    + " stayed busy for " + timeoutNs / 1_000_000_000L + " s (GEX_BACKPRESSURE_TIMEOUT)");
            }
        }
    }

    /** @return a free slot, or -1 at once if every slot is busy (for calls with {@code Flags.IMMEDIATE}) */
    public synchronized int tryAcquire() {
        return freeCount > 0 ? free[--freeCount] : -1;
    }

    public synchronized void release(int slot) {
        free[freeCount++] = slot;
    }
}
