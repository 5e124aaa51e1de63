package org.gexj;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * What a rank needs to reach another rank's {@link Registration}: the owner's rank, the registration's handle there,
 * the memory's address and length in the owner's process, and the key a NIC needs for it (0 where the conduit needs
 * none). It is a value: {@link #encode} writes it in {@link #ENCODED_LENGTH} bytes (small enough for any AM Medium),
 * {@link #decode} reads it back on any rank, as Charm++'s zero-copy metadata travels in an ordinary message.
 *
 * <p>Remote access through a descriptor addresses bytes by offset into the registration, {@code [0, length)}. The
 * initiator checks every range against {@link #length}; the owner checks again and refuses an access to a
 * registration that was closed since, so a descriptor kept past its registration's life fails with an error naming the
 * rank and the range, and writes nothing. The owner never reuses a handle soon: a slot's handle changes with every
 * registration it holds (see {@code RegistrationTable}).
 *
 * <p>Where the owner's conduit registered the memory with its NIC for peers ({@link #keyed}: ofi), initiators move
 * data by RDMA with {@link #key}, and the NIC is what refuses a closed registration or a range outside it; elsewhere
 * the owner's handlers or its shared table do (see {@code Rma}).
 *
 * @param rank    the owner's rank
 * @param handle  the registration's handle at the owner, never 0
 * @param address the memory's address in the owner's process, for the NIC and for messages
 * @param length  the registered bytes
 * @param key     the remote key a NIC needs, 0 where none is needed
 * @param flags   {@link #READ_ONLY}, {@link #KEYED}
 */
public record BufferDescriptor(int rank, int handle, long address, long length, long key, int flags) {
    /** {@link #flags}: the owner registered read-only memory, and refuses puts. */
    public static final int READ_ONLY = 1;
    /** {@link #flags}: {@link #key} is a NIC's remote key for the memory, and peers move data with RDMA. */
    public static final int KEYED = 2;
    private static final int KNOWN_FLAGS = READ_ONLY | KEYED;
    /** Bytes {@link #encode} writes. */
    public static final int ENCODED_LENGTH = 40;
    /** The first word of an encoded descriptor: "GXD" and the format's version, 1. */
    static final int MAGIC = 0x47584401;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** @throws IllegalArgumentException naming the value, if the rank, handle or length is impossible */
    public BufferDescriptor {
        if (rank < 0) {
            throw new IllegalArgumentException("descriptor rank " + rank + " outside [0, " + Integer.MAX_VALUE + "]");
        }
        if (handle == 0) {
            throw new IllegalArgumentException("descriptor handle 0: no registration has it");
        }
        if (length < 0) {
            throw new IllegalArgumentException("descriptor length " + length + " outside [0, " + Long.MAX_VALUE + "]");
        }
        if ((flags & ~KNOWN_FLAGS) != 0) {
            throw new IllegalArgumentException("descriptor flags 0x" + Integer.toHexString(flags) + ": only READ_ONLY"
                + " (1) and KEYED (2) exist");
        }
    }

    /** A descriptor of writable memory reached without a NIC key (flags 0). */
    public BufferDescriptor(int rank, int handle, long address, long length, long key) {
        this(rank, handle, address, length, key, 0);
    }

    /** Whether the owner refuses puts ({@link #READ_ONLY}). */
    public boolean readOnly() {
        return (flags & READ_ONLY) != 0;
    }

    /** Whether peers reach the memory by RDMA with {@link #key} ({@link #KEYED}). */
    public boolean keyed() {
        return (flags & KEYED) != 0;
    }

    /**
     * Checks an access to {@code [offset, offset + nbytes)} of the registration.
     *
     * @throws IllegalArgumentException naming the range and the registration's bounds, if it is outside them
     */
    public void checkRange(long offset, long nbytes) {
        if (nbytes < 0 || offset < 0 || offset > length - nbytes) {
            throw new IllegalArgumentException("range [" + offset + ", " + (offset + nbytes) + ") outside rank " + rank
                + "'s registration " + handleName(handle) + " [0, " + length + ")");
        }
    }

    /** Writes this descriptor into {@code dst} at {@code offset}: {@link #ENCODED_LENGTH} bytes, little-endian. */
    public void encode(MemorySegment dst, long offset) {
        dst.set(INT, offset, MAGIC);
        dst.set(INT, offset + 4, rank);
        dst.set(INT, offset + 8, handle);
        dst.set(INT, offset + 12, flags);
        dst.set(LONG, offset + 16, address);
        dst.set(LONG, offset + 24, length);
        dst.set(LONG, offset + 32, key);
    }

    /** This descriptor's {@link #encode encoding}. */
    public byte[] toBytes() {
        final byte[] bytes = new byte[ENCODED_LENGTH];
        encode(MemorySegment.ofArray(bytes), 0);
        return bytes;
    }

    /**
     * Reads a descriptor {@link #encode} wrote.
     *
     * @throws IllegalArgumentException if the bytes are not a descriptor (naming what was found), or hold an impossible
     *                                  rank, handle or length
     * @throws IndexOutOfBoundsException if fewer than {@link #ENCODED_LENGTH} bytes follow {@code offset}
     */
    public static BufferDescriptor decode(MemorySegment src, long offset) {
        final int magic = src.get(INT, offset);
        if (magic != MAGIC) {
            throw new IllegalArgumentException("not a buffer descriptor: first word 0x" + Integer.toHexString(magic)
                + ", expected 0x" + Integer.toHexString(MAGIC));
        }
        return new BufferDescriptor(src.get(INT, offset + 4), src.get(INT, offset + 8), src.get(LONG, offset + 16),
            src.get(LONG, offset + 24), src.get(LONG, offset + 32), src.get(INT, offset + 12));
    }

    /** {@link #decode} of a whole array. */
    public static BufferDescriptor fromBytes(byte[] bytes) {
        if (bytes.length != ENCODED_LENGTH) {
            throw new IllegalArgumentException("a buffer descriptor is " + ENCODED_LENGTH + " bytes, not "
                + bytes.length);
        }
        return decode(MemorySegment.ofArray(bytes), 0);
    }

    /** A handle as messages show it. */
    static String handleName(int handle) {
        return "0x" + Integer.toHexString(handle);
    }

    @Override
    public String toString() {
        return "BufferDescriptor[rank " + rank + ", handle " + handleName(handle) + ", " + length + " bytes at 0x"
            + Long.toHexString(address) + (keyed() ? ", key 0x" + Long.toHexString(key) : "")
            + (readOnly() ? ", read-only" : "") + "]";
    }
}
