package org.gexj.internal.ffm;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Up to 32 sets of native call memory (a downcall's structs, its errno capture), each taken by one calling thread at a
 * time, so that a downcall allocates nothing on any thread, ever: thread-local memory would be allocated at a
 * thread's first call, inside whatever window measures it. A thread that finds every set taken does something else
 * (parks, takes another path) rather than wait for one.
 *
 * <p>Threads: any, concurrently.
 */
public final class CallSlots {
    private final int slots;
    /** Bit i set: set i is taken. */
    private final AtomicInteger taken = new AtomicInteger();

    /** @param slots sets, 1 to 32 */
    public CallSlots(int slots) {
        if (slots < 1 || slots > Integer.SIZE) {
            throw new IllegalArgumentException("call slots " + slots + " outside [1, 32]");
        }
        this.slots = slots;
    }

    /** @return a set this thread holds until it {@link #give}s it back, or -1 if every set is taken */
    public int take() {
        int bits;
        int slot;
        do {
            bits = taken.get();
            slot = Integer.numberOfTrailingZeros(~bits);
            if (slot >= slots) {
                return -1;
            }
        } while (!taken.compareAndSet(bits, bits | (1 << slot)));
        return slot;
    }

    /** Gives back a set {@link #take} returned. */
    public void give(int slot) {
        int bits;
        do {
            bits = taken.get();
        } while (!taken.compareAndSet(bits, bits & ~(1 << slot)));
    }
}
