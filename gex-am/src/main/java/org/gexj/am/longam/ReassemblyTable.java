package org.gexj.am.longam;

import org.agrona.DirectBuffer;
import org.agrona.collections.Hashing;
import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.am.wire.LongTagCodec;

import java.util.Arrays;

/**
 * The target's matching table of target-side reassembly for AM Long: the payload write (its completion tagged by
 * {@link LongTagCodec}) and the envelope (an AM frame) of one AM Long arrive in either order; the first is remembered
 * here under its key (source rank, direction, slot), the second takes it out, and only then does the caller run the
 * handler — exactly once, with the payload in place.
 *
 * <p>Return codes of {@link #onPayload} and {@link #onEnvelope}:
 * <ul>
 * <li>{@link #STORED}: first arrival of the key; remembered, nothing to run yet;</li>
 * <li>{@link #COMPLETE}: second arrival; the entry is removed and the caller runs the handler now;</li>
 * <li>{@link #DUPLICATE}: the same half of a pending key arrived again; counted ({@link #duplicates()}) and dropped,
 * the pending entry is unchanged;</li>
 * <li>{@link #MALFORMED}: an envelope with a negative length or one larger than {@link #maxEnvelopeLength()}; counted
 * ({@link #malformed()}) and dropped, whatever is pending for its key is unchanged. The check does not depend on
 * arrival order, so a frame is never accepted in one order and refused in the other.</li>
 * </ul>
 * A duplicate is recognized only while its key is pending: once matched, the key is free for the next message on
 * the slot. The conduits' transports (RC QPs, RDM endpoints) do not duplicate; the count is there to expose bugs.
 *
 * <p>Keys: a slot is a requester's credit slot ({@link CreditSlots}), not reused before the pair is matched, so a key
 * names at most one message in flight. The caller validates tags ({@link LongTagCodec#isValid}) and frames before
 * calling; an out-of-range key field here is a bug and throws.
 *
 * <p>Memory: open addressing with linear probing over primitive arrays (load factor at most 1/2, backward-shift
 * deletion, so no tombstones accumulate), and one envelope slab of {@code maxEnvelopeLength} bytes per entry, because
 * the conduit reuses its receive buffer once {@code onEnvelope} returns. Nothing is allocated per message. The table
 * grows (doubling, which allocates) only when the number of live entries would exceed its capacity; credits bound the
 * live entries by (ranks sending to this one) x 2 directions x slots per peer, and in practice by the AM Longs really
 * in flight at once, so after warm-up it stops growing.
 *
 * <p>Thread contract: single-threaded. Only the polling thread that drains the completion queue calls it.
 */
public final class ReassemblyTable {
    /** First arrival of the key: remembered. */
    public static final int STORED = 0;
    /** Second arrival: the entry is removed and the handler runs now. */
    public static final int COMPLETE = 1;
    /** The same half of a pending key again: counted and dropped. */
    public static final int DUPLICATE = 2;
    /** An envelope whose length is negative or larger than a slab: counted and dropped. */
    public static final int MALFORMED = 3;

    /** Largest capacity: 16 Mi AM Longs pending toward one rank. */
    public static final int MAX_CAPACITY = 1 << 24;
    /** Largest slab memory, capacity x envelope bytes. */
    public static final int MAX_SLAB_BYTES = 1 << 30;
    /** Largest slab per entry: an AM frame header with 16 args is 88 bytes. */
    public static final int MAX_ENVELOPE_LENGTH = 1 << 16;

    private static final long EMPTY = -1L;
    /** {@link #slabOf} of an entry whose payload came first: it holds no envelope. */
    private static final int PAYLOAD_ONLY = -1;

    private final int maxEnvelopeLength;
    private final UnsafeBuffer envelopeView = new UnsafeBuffer(0, 0);
    private int envelopeLength;

    private int capacity;
    private int size;
    private long[] keys;
    private int[] slabOf;
    private int[] lengthOf;
    private byte[] slabs;
    private int[] freeSlabs;
    private int freeSlabCount;

    private long duplicates;
    private long malformed;

    /**
     * @param initialCapacity   live entries held before the first growth (rounded up to a power of two); size it
     *                          to the expected AM Longs in flight toward this rank
     * @param maxEnvelopeLength slab bytes per entry: the largest envelope frame accepted
     * @throws IllegalArgumentException naming the value and the allowed range
     */
    public ReassemblyTable(int initialCapacity, int maxEnvelopeLength) {
        if (maxEnvelopeLength < 1 || maxEnvelopeLength > MAX_ENVELOPE_LENGTH) {
            throw new IllegalArgumentException("envelopes of up to " + maxEnvelopeLength + " bytes: must be 1.."
                + MAX_ENVELOPE_LENGTH);
        }
        if (initialCapacity < 1 || !fits(initialCapacity, maxEnvelopeLength)) {
            throw new IllegalArgumentException("initial capacity " + initialCapacity + ": must be 1.." + MAX_CAPACITY
                + " and, times " + maxEnvelopeLength + " envelope bytes, at most " + MAX_SLAB_BYTES + " bytes");
        }
        this.maxEnvelopeLength = maxEnvelopeLength;
        allocate(initialCapacity == 1 ? 1 : Integer.highestOneBit(initialCapacity - 1) << 1);
    }

    /** True if an arrival of (source, direction, slot) waits here for its other half. */
    public boolean contains(int source, int direction, int slot) {
        return find(key(source, direction, slot)) >= 0;
    }

    /**
     * The payload write tagged (source, direction, slot) has landed.
     *
     * @return {@link #STORED}, {@link #COMPLETE} (the envelope had arrived: read it from {@link #storedEnvelope()})
     * or {@link #DUPLICATE}
     */
    public int onPayload(int source, int direction, int slot) {
        final long key = key(source, direction, slot);
        final int at = find(key);
        if (at < 0) {
            insert(vacancy(at, key), key, PAYLOAD_ONLY, 0);
            return STORED;
        }
        final int slab = slabOf[at];
        if (slab == PAYLOAD_ONLY) {
            duplicates++;
            return DUPLICATE;
        }
        // the slab is free again but is only overwritten by a later call, which also ends the view's validity
        envelopeLength = lengthOf[at];
        envelopeView.wrap(slabs, slab * maxEnvelopeLength, envelopeLength);
        freeSlabs[freeSlabCount++] = slab;
        remove(at);
        return COMPLETE;
    }

    /**
     * The envelope of (source, direction, slot) has arrived in {@code frame[offset, offset + length)}; the frame is
     * only read during this call.
     *
     * @return {@link #STORED} (its bytes were copied), {@link #COMPLETE} (the payload had arrived: the caller runs the
     * handler on the frame it holds), {@link #DUPLICATE} or {@link #MALFORMED}
     * @throws IndexOutOfBoundsException if a well-formed length does not fit in {@code frame} from {@code offset}
     *                                   (checked here whatever Agrona's bounds-check setting)
     */
    public int onEnvelope(int source, int direction, int slot, DirectBuffer frame, int offset, int length) {
        final long key = key(source, direction, slot);
        if (length < 0 || length > maxEnvelopeLength) {
            malformed++;
            return MALFORMED;
        }
        if (offset < 0 || offset > frame.capacity() - length) {
            throw new IndexOutOfBoundsException("envelope at " + offset + " of " + length + " bytes outside a frame"
                + " buffer of " + frame.capacity() + " bytes");
        }
        final int at = find(key);
        if (at >= 0) {
            if (slabOf[at] != PAYLOAD_ONLY) {
                duplicates++;
                return DUPLICATE;
            }
            remove(at);
            return COMPLETE;
        }
        final int cell = vacancy(at, key);
        final int slab = freeSlabs[--freeSlabCount];
        frame.getBytes(offset, slabs, slab * maxEnvelopeLength, length);
        insert(cell, key, slab, length);
        return STORED;
    }

    /**
     * The envelope that completed the last {@link #onPayload} returning {@link #COMPLETE}: a view of exactly
     * {@link #storedEnvelopeLength()} bytes from index 0, valid until the next call of any method of this table.
     */
    public DirectBuffer storedEnvelope() {
        return envelopeView;
    }

    public int storedEnvelopeLength() {
        return envelopeLength;
    }

    /** Pending entries: 0 once traffic stops and every pair has been matched. */
    public int size() {
        return size;
    }

    /** Live entries held before the next growth. */
    public int capacity() {
        return capacity;
    }

    public int maxEnvelopeLength() {
        return maxEnvelopeLength;
    }

    /** Arrivals dropped as {@link #DUPLICATE}. */
    public long duplicates() {
        return duplicates;
    }

    /** Envelopes dropped as {@link #MALFORMED}. */
    public long malformed() {
        return malformed;
    }

    private static long key(int source, int direction, int slot) {
        if (source < 0 || slot < 0 || (direction & ~1) != 0) {
            throw new IllegalArgumentException("reassembly key (source " + source + ", direction " + direction
                + ", slot " + slot + "): source and slot must be >= 0, direction 0 or 1");
        }
        return (long) source << 32 | (long) direction << 31 | slot;
    }

    /** @return the index holding {@code key}, or {@code ~index} of the empty cell where it would go */
    private int find(long key) {
        final int mask = keys.length - 1;
        int i = Hashing.hash(key, mask);
        while (true) {
            final long k = keys[i];
            if (k == key) {
                return i;
            }
            if (k == EMPTY) {
                return ~i;
            }
            i = (i + 1) & mask;
        }
    }

    private static boolean fits(int capacity, int maxEnvelopeLength) {
        return capacity <= MAX_CAPACITY && (long) capacity * maxEnvelopeLength <= MAX_SLAB_BYTES;
    }

    /** @return the empty cell for an absent key ({@code notFound} from {@link #find}), growing first if full */
    private int vacancy(int notFound, long key) {
        if (size < capacity) {
            return ~notFound;
        }
        grow();
        return ~find(key);
    }

    private void insert(int at, long key, int slab, int length) {
        keys[at] = key;
        slabOf[at] = slab;
        lengthOf[at] = length;
        size++;
    }

    /** Backward-shift deletion: moves later entries of the probe run into the hole, so lookups need no tombstones. */
    private void remove(int at) {
        final int mask = keys.length - 1;
        int hole = at;
        int i = at;
        while (true) {
            i = (i + 1) & mask;
            final long k = keys[i];
            if (k == EMPTY) {
                break;
            }
            final int home = Hashing.hash(k, mask);
            // the entry may fill the hole only if the hole lies on its probe path, from home up to i
            if (((i - home) & mask) >= ((i - hole) & mask)) {
                keys[hole] = k;
                slabOf[hole] = slabOf[i];
                lengthOf[hole] = lengthOf[i];
                hole = i;
            }
        }
        keys[hole] = EMPTY;
        size--;
    }

    private void allocate(int newCapacity) {
        capacity = newCapacity;
        keys = new long[2 * newCapacity];
        Arrays.fill(keys, EMPTY);
        slabOf = new int[2 * newCapacity];
        lengthOf = new int[2 * newCapacity];
        slabs = new byte[newCapacity * maxEnvelopeLength];
        freeSlabs = new int[newCapacity];
        freeSlabCount = newCapacity;
        for (int i = 0; i < newCapacity; i++) {
            freeSlabs[i] = newCapacity - 1 - i;
        }
    }

    /** Doubles capacity, keeping every entry's slab index, so its envelope bytes keep their place. */
    private void grow() {
        final int oldCapacity = capacity;
        if (!fits(2 * oldCapacity, maxEnvelopeLength)) {
            throw new IllegalStateException("reassembly table full: " + size + " AM Longs pending, the most it holds"
                + " with " + maxEnvelopeLength + "-byte envelopes; credits should bound them far below");
        }
        final long[] oldKeys = keys;
        final int[] oldSlabOf = slabOf;
        final int[] oldLengthOf = lengthOf;
        final byte[] oldSlabs = slabs;
        final int[] oldFree = freeSlabs;
        final int oldFreeCount = freeSlabCount;
        allocate(2 * oldCapacity);
        System.arraycopy(oldSlabs, 0, slabs, 0, oldSlabs.length);
        // free slabs: the old free ones plus all the new ones
        freeSlabCount = 0;
        for (int i = 2 * oldCapacity - 1; i >= oldCapacity; i--) {
            freeSlabs[freeSlabCount++] = i;
        }
        System.arraycopy(oldFree, 0, freeSlabs, freeSlabCount, oldFreeCount);
        freeSlabCount += oldFreeCount;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                final int at = ~find(oldKeys[i]);
                keys[at] = oldKeys[i];
                slabOf[at] = oldSlabOf[i];
                lengthOf[at] = oldLengthOf[i];
            }
        }
    }
}
