package org.gexj.am;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.gexj.internal.PayloadCopy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The payload of a delivered Medium or Long AM, as a read-only view valid only during the handler (a Medium
 * payload lives in a library buffer that is reused afterwards; GASNet's rule, enforced here). Medium payloads
 * start 8-byte aligned. For Long, the bytes are also in the local segment at {@link #segmentOffset()}, where
 * they stay. Lengths and offsets are {@code long}: a Long may be larger than 2 GiB. Multi-byte values are read in
 * native byte order.
 */
public final class Payload {
    /** Medium: the frame buffer and where the payload starts in it; null for Long. */
    private DirectBuffer buffer;
    private int index;
    /** Long: the local segment, read in place at {@link #segmentOffset} (no view object per message). */
    private MemorySegment segment;
    private long length;
    private long segmentOffset;
    private boolean valid;

    void wrapMedium(DirectBuffer frameBuffer, int payloadIndex, int payloadLength) {
        if (buffer != frameBuffer) { // unchanged mostly: G1 fences a reference store (DESIGN section 12)
            buffer = frameBuffer;
        }
        index = payloadIndex;
        segment = null;
        length = payloadLength;
        segmentOffset = -1;
        valid = true;
    }

    void wrapLong(MemorySegment localSegment, long dest, long payloadLength) {
        buffer = null;
        segment = localSegment;
        length = payloadLength;
        segmentOffset = dest;
        valid = true;
    }

    void invalidate() {
        valid = false;
    }

    private void check(long at, long width) {
        if (!valid) {
            throw new IllegalStateException("an AM payload is valid only during its handler");
        }
        if (width < 0) {
            throw new IndexOutOfBoundsException("byte count " + width + " is negative");
        }
        if (at < 0 || at > length - width) {
            throw new IndexOutOfBoundsException("payload range [" + at + ", " + (at + width) + ") outside [0, "
                + length + ")");
        }
    }

    /**
     * A Medium payload's first byte in native memory, for a library handler's reads of the whole payload at once
     * ({@link org.gexj.am.internal.AmAccess#payloadAddress}); 0 where its bytes are not in native memory (a Long's, a
     * heap buffer's) or after its handler returned.
     */
    long nativeAddress() {
        return valid && buffer != null && buffer.byteArray() == null ? buffer.addressOffset() + index : 0;
    }

    /** Payload length in bytes. */
    public long length() {
        return length;
    }

    /** Long only: where the payload lies in the local segment (the initiator's {@code dest}); -1 for Medium. */
    public long segmentOffset() {
        return segmentOffset;
    }

    public byte getByte(long at) {
        check(at, 1);
        return buffer != null ? buffer.getByte(index + (int) at)
            : segment.get(ValueLayout.JAVA_BYTE, segmentOffset + at);
    }

    public int getInt(long at) {
        check(at, 4);
        return buffer != null ? buffer.getInt(index + (int) at)
            : segment.get(ValueLayout.JAVA_INT_UNALIGNED, segmentOffset + at);
    }

    public long getLong(long at) {
        check(at, 8);
        return buffer != null ? buffer.getLong(index + (int) at)
            : segment.get(ValueLayout.JAVA_LONG_UNALIGNED, segmentOffset + at);
    }

    /**
     * Copies {@code count} bytes from {@code at} into {@code dst} at {@code dstOffset}.
     *
     * @throws IndexOutOfBoundsException naming the bad range, if either range is outside its bounds (nothing is copied)
     */
    public void getBytes(long at, byte[] dst, int dstOffset, int count) {
        check(at, count);
        Memory.checkRange("destination array", dstOffset, count, dst.length);
        if (buffer != null) {
            buffer.getBytes(index + (int) at, dst, dstOffset, count);
        } else {
            MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, segmentOffset + at, dst, dstOffset, count);
        }
    }

    /**
     * Copies {@code count} bytes from {@code at} into {@code dst} at {@code dstOffset}.
     *
     * @throws IndexOutOfBoundsException naming the bad range, if either range is outside its bounds (nothing is copied)
     * @throws IllegalArgumentException if {@code dst} is read-only
     */
    public void copyTo(long at, MemorySegment dst, long dstOffset, long count) {
        check(at, count);
        Memory.checkRange("destination segment", dstOffset, count, dst.byteSize());
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("destination segment is read-only");
        }
        if (buffer != null) {
            Memory.copy(buffer, index + (int) at, dst, dstOffset, count);
        } else if (count > 0) {
            PayloadCopy.copy(segment, segmentOffset + at, dst, dstOffset, count);
        }
    }

    /**
     * Sending from this payload: {@code [at, at + count)} must lie in it.
     *
     * @throws IllegalStateException after its handler returned
     * @throws IllegalArgumentException naming the range and the payload's length
     */
    void checkSource(long at, long count) {
        if (!valid) {
            throw new IllegalStateException("an AM payload is valid only during its handler");
        }
        if (at < 0 || count < 0 || at > length - count) {
            throw new IllegalArgumentException("source range [" + at + ", " + (at + count)
                + ") outside the delivered payload [0, " + length + ")");
        }
    }

    /**
     * Copies {@code count} bytes (at most a Medium's) from {@code at} into {@code dst} at {@code dstIndex}; checked by
     * {@link #checkSource}.
     */
    void copyTo(long at, MutableDirectBuffer dst, int dstIndex, int count) {
        if (buffer != null) {
            Memory.copy(buffer, index + (int) at, dst, dstIndex, count);
        } else {
            Memory.copy(segment, segmentOffset + at, dst, dstIndex, count);
        }
    }

    /**
     * Copies the whole payload into a new array (allocates: for tests and the control path).
     *
     * @throws IllegalStateException if the payload is larger than an array can be
     */
    public byte[] toArray() {
        if (length > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("a payload of " + length + " bytes does not fit in an array (at most "
                + (Integer.MAX_VALUE - 8) + " bytes)");
        }
        final byte[] a = new byte[(int) length];
        getBytes(0, a, 0, a.length);
        return a;
    }
}
