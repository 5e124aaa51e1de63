package org.gexj.rdma;

import java.lang.foreign.MemorySegment;
import java.util.function.Function;

/**
 * NIC registrations of local memory outside the segment, kept after the operation that made them so that the next
 * operation on the same memory finds one instead of paying {@code fi_mr_reg}/{@code ibv_reg_mr} (a kernel call that
 * pins pages) again: what GASNet's firehose and UCX's rcache do for their conduits.
 *
 * <p><b>Bounds.</b> At most {@code limitBytes} of registered memory that no operation uses stays pinned, and at most
 * {@link #MAX_ENTRIES} registrations at all: beyond either, the least recently used unused ones are released first.
 * Registrations in use are never released; while they alone exceed the limit the cache holds more, and an operation
 * that finds every entry in use gets none ({@link #acquire} returns -1: the caller registers for the one operation).
 * A limit of 0 caches nothing.
 *
 * <p><b>Closed memory.</b> An entry remembers its memory's scope (its arena) and holds the memory: a registration is
 * handed out only for memory of the same scope, while that scope is alive, so memory that an arena's close freed and
 * a later arena got back at the same address never meets the old registration (whose pinned pages are not the new
 * memory's). Entries whose scope died are released when found unused. Holding the memory keeps an automatic arena's
 * memory from being freed while cached. What the cache cannot see is native memory freed outside any arena (the
 * global scope, {@code free} through a downcall) while a registration of it is cached: such memory must not be used
 * for RMA after it was freed, as with any registration cache.
 *
 * <p>Threads: not thread-safe; the RMA engine uses it under the {@link RdmaGuard} lock. A hit allocates nothing.
 */
final class RdmaRegistrationCache {
    /** Registrations the cache keeps at most, in use or not. */
    static final int MAX_ENTRIES = 256;
    /** Registrations cover whole pages of the operation's memory, within its segment, so neighbours hit too. */
    static final long PAGE = 4096;

    private final Function<MemorySegment, RdmaRegion> register;
    private final long limitBytes;
    private final int capacity;
    private final long[] base;
    private final long[] length;
    private final MemorySegment[] memory;
    private final RdmaRegion[] region;
    private final int[] users;
    private final long[] lastUse;
    /** Entries below this index may be occupied (region non-null); above it none are. */
    private int high;
    private long tick;
    private long unusedBytes;
    private long pinnedBytes;
    private long hits;
    private long misses;
    private long releases;

    /**
     * @param register   registers memory with the NIC (for one operation's local access)
     * @param limitBytes registered bytes that unused entries may hold: {@code GEX_REG_CACHE_BYTES}
     * @param capacity   entries at most, at most {@link #MAX_ENTRIES} in the engine
     */
    RdmaRegistrationCache(Function<MemorySegment, RdmaRegion> register, long limitBytes, int capacity) {
        if (limitBytes < 0 || capacity < 1) {
            throw new IllegalArgumentException("registration cache of " + limitBytes + " bytes and " + capacity
                + " entries: the bytes must be at least 0 and the entries at least 1");
        }
        this.register = register;
        this.limitBytes = limitBytes;
        this.capacity = capacity;
        this.base = new long[capacity];
        this.length = new long[capacity];
        this.memory = new MemorySegment[capacity];
        this.region = new RdmaRegion[capacity];
        this.users = new int[capacity];
        this.lastUse = new long[capacity];
    }

    /**
     * An entry whose registration covers {@code [address, address + nbytes)} of {@code local}, made now if none does;
     * the caller {@link #release}s it when its operation completes.
     *
     * @param local   the operation's local memory, native, containing the range
     * @param address the range's first byte
     * @param nbytes  the range's length, at least 1
     * @return the entry, or -1 if the cache holds none and keeps no new one (every entry is in use, or the limit is
     *         0): the caller registers for the one operation
     */
    int acquire(MemorySegment local, long address, long nbytes) {
        final MemorySegment.Scope scope = local.scope();
        final long end = address + nbytes;
        for (int i = 0; i < high; i++) {
            if (region[i] == null || base[i] > address || base[i] + length[i] < end) {
                continue;
            }
            final MemorySegment.Scope held = memory[i].scope();
            if (!held.isAlive()) {
                if (users[i] == 0) {
                    remove(i); // its arena closed: never handed out again
                }
                continue;
            }
            if (held.equals(scope)) {
                use(i);
                hits++;
                return i;
            }
        }
        misses++;
        if (limitBytes == 0) {
            return -1;
        }
        final long from = Math.max(local.address(), address & -PAGE);
        final long to = Math.min(local.address() + local.byteSize(), (end + PAGE - 1) & -PAGE);
        if (to - from > limitBytes) {
            return -1; // larger than the cache may keep: registered for this operation alone
        }
        purgeDead();
        int slot = freeSlot();
        if (slot < 0 && evictOne()) {
            slot = freeSlot();
        }
        if (slot < 0) {
            return -1;
        }
        final MemorySegment covered = local.asSlice(from - local.address(), to - from);
        region[slot] = register.apply(covered);
        memory[slot] = covered;
        base[slot] = from;
        length[slot] = to - from;
        users[slot] = 0;
        pinnedBytes += to - from;
        unusedBytes += to - from;
        high = Math.max(high, slot + 1);
        use(slot);
        trim();
        return slot;
    }

    /** The local descriptor of an entry {@link #acquire} returned. */
    long descriptor(int entry) {
        return region[entry].descriptor();
    }

    /** The operation that acquired {@code entry} completed; unused entries over the limit are released. */
    void release(int entry) {
        if (--users[entry] == 0) {
            unusedBytes += length[entry];
            if (!memory[entry].scope().isAlive()) {
                remove(entry);
            }
            trim();
        }
    }

    /** Releases every registration (the engine closes, with no operation in flight). */
    void close() {
        for (int i = 0; i < high; i++) {
            if (region[i] != null) {
                if (users[i] > 0) {
                    unusedBytes += length[i];
                    users[i] = 0;
                }
                remove(i);
            }
        }
        high = 0;
    }

    /** Registered bytes that no operation uses now. */
    long unusedBytes() {
        return unusedBytes;
    }

    /** Registered bytes held, in use or not. */
    long pinnedBytes() {
        return pinnedBytes;
    }

    /** Registrations held, in use or not. */
    int entries() {
        int n = 0;
        for (int i = 0; i < high; i++) {
            if (region[i] != null) {
                n++;
            }
        }
        return n;
    }

    long hits() {
        return hits;
    }

    long misses() {
        return misses;
    }

    /** Registrations the cache released (evicted, dead or at close). */
    long releases() {
        return releases;
    }

    private void use(int i) {
        if (users[i]++ == 0) {
            unusedBytes -= length[i];
        }
        lastUse[i] = ++tick;
    }

    private int freeSlot() {
        for (int i = 0; i < capacity; i++) {
            if (region[i] == null) {
                return i;
            }
        }
        return -1;
    }

    /** Releases the least recently used unused entry; @return whether there was one */
    private boolean evictOne() {
        int victim = -1;
        for (int i = 0; i < high; i++) {
            if (region[i] != null && users[i] == 0 && (victim < 0 || lastUse[i] < lastUse[victim])) {
                victim = i;
            }
        }
        if (victim < 0) {
            return false;
        }
        remove(victim);
        return true;
    }

    /** Releases least recently used unused entries until what is unused fits the limit. */
    private void trim() {
        while (unusedBytes > limitBytes && evictOne()) {
            // evicted one
        }
    }

    private void purgeDead() {
        for (int i = 0; i < high; i++) {
            if (region[i] != null && users[i] == 0 && !memory[i].scope().isAlive()) {
                remove(i);
            }
        }
    }

    private void remove(int i) {
        final RdmaRegion r = region[i];
        region[i] = null;
        memory[i] = null;
        pinnedBytes -= length[i];
        unusedBytes -= length[i];
        length[i] = 0;
        releases++;
        while (high > 0 && region[high - 1] == null) {
            high--;
        }
        r.release().run();
    }
}
