package org.gexj.am;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.MemorySegment;

/**
 * The payload of a delivered Medium or Long AM, as a read-only view valid only during the handler (a Medium
 * payload lives in a library buffer that is reused afterwards; GASNet's rule, enforced here). Medium payloads
 * start 8-byte aligned. For Long, the bytes are also in the local segment at {@link #segmentOffset()}, where
 * they stay.
 */
public final class Payload {
    private final UnsafeBuffer segmentView = new UnsafeBuffer(0, 0);
    private DirectBuffer buffer;
    private int index;
    private int length;
    private long segmentOffset;
    private boolean valid;

    void wrapMedium(DirectBuffer frameBuffer, int payloadIndex, int payloadLength) {
        buffer = frameBuffer;
        index = payloadIndex;
        length = payloadLength;
        segmentOffset = -1;
        valid = true;
    }

    void wrapLong(MemorySegment localSegment, long dest, int payloadLength) {
        if (payloadLength == 0) {
            segmentView.wrap(localSegment.address(), 0);
        } else {
            segmentView.wrap(localSegment.address() + dest, payloadLength);
        }
        buffer = segmentView;
        index = 0;
        length = payloadLength;
        segmentOffset = dest;
        valid = true;
    }

    void invalidate() {
        valid = false;
    }

    private void check(long at, int width) {
        if (!valid) {
            throw new IllegalStateException("an AM payload is valid only during its handler");
        }
        if (width < 0) {
            throw new IndexOutOfBoundsException("byte count " + width + " is negative");
        }
        if (at < 0 || at > length - width) {
            throw new IndexOutOfBoundsException("payload range [" + at + ", " + (at + width) + ") outside [0, " + length + ")");
        }
    }

    /** Payload length in bytes. */
    public int length() {
        return length;
    }

    /** Long only: where the payload lies in the local segment (the initiator's {@code dest}); -1 for Medium. */
    public long segmentOffset() {
        return segmentOffset;
    }

    public byte getByte(int at) {
        check(at, 1);
        return buffer.getByte(index + at);
    }

    public int getInt(int at) {
        check(at, 4);
        return buffer.getInt(index + at);
    }

    public long getLong(int at) {
        check(at, 8);
        return buffer.getLong(index + at);
    }

    /**
     * Copies {@code count} bytes from {@code at} into {@code dst} at {@code dstOffset}.
     *
     * @throws IndexOutOfBoundsException naming the bad range, if either range is outside its bounds (nothing is copied)
     */
    public void getBytes(int at, byte[] dst, int dstOffset, int count) {
        check(at, count);
        Memory.checkRange("destination array", dstOffset, count, dst.length);
        buffer.getBytes(index + at, dst, dstOffset, count);
    }

    /**
     * Copies {@code count} bytes from {@code at} into {@code dst} at {@code dstOffset}.
     *
     * @throws IndexOutOfBoundsException naming the bad range, if either range is outside its bounds (nothing is copied)
     * @throws IllegalArgumentException if {@code dst} is read-only
     */
    public void copyTo(int at, MemorySegment dst, long dstOffset, int count) {
        check(at, count);
        Memory.checkRange("destination segment", dstOffset, count, dst.byteSize());
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("destination segment is read-only");
        }
        Memory.copy(buffer, index + at, dst, dstOffset, count);
    }

    /**
     * Sending from this payload: {@code [at, at + count)} must lie in it.
     *
     * @throws IllegalStateException after its handler returned
     * @throws IllegalArgumentException naming the range and the payload's length
     */
    void checkSource(int at, int count) {
        if (!valid) {
            throw new IllegalStateException("an AM payload is valid only during its handler");
        }
        if (at < 0 || count < 0 || at > length - count) {
            throw new IllegalArgumentException("source range [" + at + ", " + ((long) at + count)
                + ") outside the delivered payload [0, " + length + ")");
        }
    }

    /** Copies {@code count} bytes from {@code at} into {@code dst} at {@code dstIndex}; checked by {@link #checkSource}. */
    void copyTo(int at, MutableDirectBuffer dst, int dstIndex, int count) {
        Memory.copy(buffer, index + at, dst, dstIndex, count);
    }

    /** Copies the whole payload into a new array (allocates: for tests and the control path). */
    public byte[] toArray() {
        final byte[] a = new byte[length];
        getBytes(0, a, 0, length);
        return a;
    }
}
