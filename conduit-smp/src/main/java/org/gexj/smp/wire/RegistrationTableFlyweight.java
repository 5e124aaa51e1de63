package org.gexj.smp.wire;

import org.agrona.concurrent.AtomicBuffer;

/**
 * A rank's published registrations (file {@code /dev/shm/<jobId>-reg-<rank>}, created by that rank, mapped by every
 * peer), through which peers reach its registered memory with Cross Memory Attach and the owner keeps its checks.
 * <pre>
 *   0               8               16              24              32                              64
 *  +---------------+---------------+---------------+---------------+--------------------------------+
 *  | version:int64 | pid:int64     | mapped at:i64 | probe:int64   | reserved, zero                 |  header
 *  +---------------+---------------+---------------+---------------+--------------------------------+
 *  | state:int64   | address:int64 | length:int64  | flags:int64   |  slot 0 (32 bytes)
 *  +---------------+---------------+---------------+---------------+
 *  | ...                                                           |  slot SLOTS - 1
 *  +---------------------------------------------------------------+
 * </pre>
 * {@code mapped at} is the owner's own address of this file, so a peer can test Cross Memory Attach by reading the
 * {@link #PROBE} word there. A slot's state is the registration's handle in its high 32 bits, a {@link #CLOSED} bit,
 * and in the low 31 bits the accesses in progress; 0 is an empty slot. The owner writes address, length and flags
 * before it releases the state; an accessor {@link #enter}s (compare-and-set of the count, only while the handle
 * matches and the slot is open), reads them, copies, and {@link #exit}s; the owner's {@link #close} sets CLOSED and
 * then waits for the count to drain, so no access starts after the close and none is in progress when it returns.
 */
public final class RegistrationTableFlyweight {
    public static final long VERSION = 1;
    /** What the probe word holds: "GEXJCMA1". */
    public static final long PROBE = 0x474558_4A434D4131L;
    /** Registrations a rank publishes at most: those in higher slots of the core's table are reached by messages. */
    public static final int SLOTS = 1024;
    public static final int HEADER = 64;
    public static final int SLOT = 32;
    public static final long CLOSED = 1L << 31;
    public static final long COUNT = CLOSED - 1;
    /** Flags: the memory is read-only. */
    public static final long READ_ONLY = 1;

    private static final int PID = 8;
    private static final int MAPPED_AT = 16;
    private static final int PROBE_OFFSET = 24;
    private static final int ADDRESS = 8;
    private static final int LENGTH = 16;
    private static final int FLAGS = 24;

    private AtomicBuffer buffer;

    /** Bytes of a table. */
    public static int length() {
        return HEADER + SLOTS * SLOT;
    }

    public RegistrationTableFlyweight wrap(AtomicBuffer buffer) {
        if (buffer.capacity() < length()) {
            throw new IllegalArgumentException("registration table of " + buffer.capacity() + " bytes, needs "
                + length());
        }
        this.buffer = buffer;
        return this;
    }

    /** The owner fills the header of its new (zero) table. */
    public void initialise(long pid) {
        buffer.putLong(PID, pid);
        buffer.putLong(MAPPED_AT, buffer.addressOffset());
        buffer.putLong(PROBE_OFFSET, PROBE);
        buffer.putLongRelease(0, VERSION);
    }

    public long version() {
        return buffer.getLongVolatile(0);
    }

    public long pid() {
        return buffer.getLong(PID);
    }

    /** The owner's address of its probe word. */
    public long probeAddress() {
        return buffer.getLong(MAPPED_AT) + PROBE_OFFSET;
    }

    private static int slot(int slot) {
        return HEADER + slot * SLOT;
    }

    /** Publishes a registration in an empty slot; @return false if the slot is not empty (a close never drained) */
    public boolean publish(int slot, int handle, long address, long length, long flags) {
        final int at = slot(slot);
        if (buffer.getLongVolatile(at) != 0) {
            return false;
        }
        buffer.putLong(at + ADDRESS, address);
        buffer.putLong(at + LENGTH, length);
        buffer.putLong(at + FLAGS, flags);
        buffer.putLongRelease(at, (long) handle << 32);
        return true;
    }

    /** Starts an access through {@code handle}; @return false if the slot holds no open registration of it */
    public boolean enter(int slot, int handle) {
        final int at = slot(slot);
        while (true) {
            final long state = buffer.getLongVolatile(at);
            if ((int) (state >>> 32) != handle || (state & CLOSED) != 0 || state == 0) {
                return false;
            }
            if (buffer.compareAndSetLong(at, state, state + 1)) {
                return true;
            }
        }
    }

    /** Ends an access that {@link #enter} started. */
    public void exit(int slot) {
        buffer.getAndAddLong(slot(slot), -1);
    }

    public long address(int slot) {
        return buffer.getLong(slot(slot) + ADDRESS);
    }

    public long length(int slot) {
        return buffer.getLong(slot(slot) + LENGTH);
    }

    public long flags(int slot) {
        return buffer.getLong(slot(slot) + FLAGS);
    }

    /** Closes {@code handle}'s slot to new accesses; @return false if the slot does not hold it */
    public boolean close(int slot, int handle) {
        final int at = slot(slot);
        while (true) {
            final long state = buffer.getLongVolatile(at);
            if ((int) (state >>> 32) != handle || state == 0) {
                return false;
            }
            if ((state & CLOSED) != 0 || buffer.compareAndSetLong(at, state, state | CLOSED)) {
                return true;
            }
        }
    }

    /** Accesses still in progress in a slot. */
    public long inProgress(int slot) {
        return buffer.getLongVolatile(slot(slot)) & COUNT;
    }

    /** Empties a closed slot once nothing is in progress there. */
    public void clear(int slot) {
        buffer.putLongRelease(slot(slot), 0);
    }
}
