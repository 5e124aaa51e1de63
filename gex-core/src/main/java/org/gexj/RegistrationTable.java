package org.gexj;

import org.gexj.spi.RegisteredAccess;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One client's open {@link Registration}s, by handle. A handle is a slot in the low {@link #SLOT_BITS} bits and the
 * slot's generation, 1 to {@link #GENERATIONS}, in the bits above: a slot's generation moves on with every
 * registration it holds, and freed slots are reused oldest first, so a stale descriptor's handle matches again only
 * after its slot has held {@link #GENERATIONS} more registrations.
 *
 * <p>Threads: {@link #register} and {@link #close} from any thread (synchronised); {@link #memory} from the polling
 * thread, without a lock, so that a handler finds a registration without waiting for a registering thread. A
 * registration's descriptor reaches another rank only after {@link #register} returned, so the slot's write
 * happens-before every access that names it.
 */
final class RegistrationTable {
    static final int SLOT_BITS = RegisteredAccess.SLOT_BITS;
    static final int MAX_SLOTS = 1 << SLOT_BITS;
    static final int GENERATIONS = (1 << (Integer.SIZE - SLOT_BITS)) - 1;
    private static final int SLOT_MASK = MAX_SLOTS - 1;
    /** Never started: a probe for memory confined to one thread. */
    private static final Thread ANOTHER_THREAD = Thread.ofVirtual().unstarted(() -> { });

    private final int rank;
    /** Where registrations are published for zero-copy access, or null. */
    private final RegisteredAccess direct;
    private volatile AtomicReferenceArray<Registration> slots = new AtomicReferenceArray<>(16);
    /** Each slot's last generation; grows with {@link #slots}. */
    private int[] generations = new int[16];
    private final ArrayDeque<Integer> free = new ArrayDeque<>();
    private int used;
    private int open;

    RegistrationTable(int rank, RegisteredAccess direct) {
        this.rank = rank;
        this.direct = direct;
    }

    /**
     * Registers {@code memory} under a new handle.
     *
     * @throws IllegalArgumentException if it is a heap segment, its arena is closed or it is confined to one thread
     */
    Registration register(MemorySegment memory) {
        Objects.requireNonNull(memory, "memory");
        if (!memory.isNative()) {
            throw new IllegalArgumentException("a heap segment cannot be registered (the collector moves it): register"
                + " native memory");
        }
        if (!memory.scope().isAlive()) {
            throw new IllegalArgumentException("memory of a closed arena cannot be registered");
        }
        if (!memory.isAccessibleBy(ANOTHER_THREAD)) {
            throw new IllegalArgumentException("memory confined to one thread (Arena.ofConfined()) cannot be"
                + " registered: whichever thread polls moves its data; use a shared, global or automatic arena");
        }
        return add(memory);
    }

    private synchronized Registration add(MemorySegment memory) {
        final int slot = freeSlot();
        final int generation = generations[slot] % GENERATIONS + 1;
        generations[slot] = generation;
        final int handle = (generation << SLOT_BITS) | slot;
        final OptionalLong key;
        try {
            key = direct == null ? OptionalLong.empty() : direct.publish(handle, memory);
        } catch (RuntimeException | Error e) {
            free.addFirst(slot); // nothing was published: the slot is free again, its generation moved on
            throw e;
        }
        final int flags = (memory.isReadOnly() ? BufferDescriptor.READ_ONLY : 0)
            | (key.isPresent() ? BufferDescriptor.KEYED : 0);
        final Registration r = new Registration(this, memory,
            new BufferDescriptor(rank, handle, memory.address(), memory.byteSize(), key.orElse(0), flags));
        slots.set(slot, r);
        open++;
        return r;
    }

    private int freeSlot() {
        final Integer reused = free.pollFirst();
        if (reused != null) {
            return reused;
        }
        if (used == MAX_SLOTS) {
            throw new IllegalStateException("rank " + rank + " has " + MAX_SLOTS + " registrations open, the most it"
                + " can hold: close some first");
        }
        if (used == slots.length()) {
            final AtomicReferenceArray<Registration> larger = new AtomicReferenceArray<>(Math.min(MAX_SLOTS,
                2 * used));
            for (int i = 0; i < used; i++) {
                larger.set(i, slots.get(i));
            }
            slots = larger;
            generations = Arrays.copyOf(generations, larger.length());
        }
        return used++;
    }

    /** Deregisters {@code r}, if it is open. */
    synchronized void close(Registration r) {
        if (!r.markClosed()) {
            return;
        }
        final int slot = r.handle() & SLOT_MASK;
        if (direct != null) {
            direct.withdraw(r.handle()); // returns once no peer copies through it
        }
        slots.set(slot, null);
        free.addLast(slot);
        open--;
    }

    /** Deregisters every open registration (the client closes). */
    synchronized void closeAll() {
        for (int slot = 0; slot < used; slot++) {
            final Registration r = slots.get(slot);
            if (r != null) {
                close(r);
            }
        }
    }

    /**
     * The memory registered under {@code handle} if it is open and its arena alive, else null: what a handler asks
     * before it moves data for a peer. No lock, no allocation.
     */
    MemorySegment memory(int handle) {
        final AtomicReferenceArray<Registration> s = slots;
        final int slot = handle & SLOT_MASK;
        if (slot >= s.length()) {
            return null;
        }
        final Registration r = s.get(slot);
        if (r == null || r.handle() != handle || !r.isOpen() || !r.memory().scope().isAlive()) {
            return null;
        }
        return r.memory();
    }

    /** The descriptor of the open registration {@code handle} (as {@link #memory} finds it), else null. */
    BufferDescriptor descriptor(int handle) {
        final AtomicReferenceArray<Registration> s = slots;
        final int slot = handle & SLOT_MASK;
        final Registration r = slot < s.length() ? s.get(slot) : null;
        return r == null || r.handle() != handle || !r.isOpen() ? null : r.descriptor();
    }

    /**
     * The handle of an open registration that holds {@code [address, address + length)}, or 0 (no handle is 0: its
     * generation is at least 1). No lock, no allocation; a scan of the slots, for sends large enough to pay for it.
     */
    int handleOf(long address, long length) {
        final AtomicReferenceArray<Registration> s = slots;
        for (int slot = 0; slot < s.length(); slot++) {
            final Registration r = s.get(slot);
            if (r != null && r.isOpen()) {
                final MemorySegment m = r.memory();
                final long offset = address - m.address();
                if (offset >= 0 && offset <= m.byteSize() - length && m.scope().isAlive()) {
                    return r.handle();
                }
            }
        }
        return 0;
    }

    /**
     * Closes the registrations whose memory's arena was closed: peers that reach registrations directly
     * ({@link RegisteredAccess}) cannot see that, so the owner withdraws them here (at its barriers). Messages never
     * reached them anyway ({@link #memory}).
     */
    synchronized void closeThoseOfClosedArenas() {
        if (direct == null) {
            return;
        }
        for (int slot = 0; slot < used; slot++) {
            final Registration r = slots.get(slot);
            if (r != null && !r.memory().scope().isAlive()) {
                close(r);
            }
        }
    }

    /** Registrations open now. */
    synchronized int open() {
        return open;
    }
}
