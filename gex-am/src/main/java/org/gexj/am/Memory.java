package org.gexj.am;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.gexj.internal.PayloadCopy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Copies between memory segments and Agrona buffers without allocating a segment per copy ({@link PayloadCopy}). */
final class Memory {
    /** All of the address space, so that absolute addresses can be copied from without a new segment object. */
    static final MemorySegment EVERYTHING = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private Memory() {
    }

    /**
     * Checks that {@code [offset, offset + count)} lies in {@code [0, limit)}: Agrona's own checks are off in jobs, so
     * every range a user hands in is checked here before memory is touched.
     *
     * @throws IndexOutOfBoundsException naming {@code what}, the range and the limit
     */
    static void checkRange(String what, long offset, long count, long limit) {
        if (count < 0) {
            throw new IndexOutOfBoundsException(what + ": byte count " + count + " is negative");
        }
        if (offset < 0 || offset > limit - count) {
            throw new IndexOutOfBoundsException(what + " range [" + offset + ", " + (offset + count)
                + ") outside [0, " + limit + ")");
        }
    }

    /** Copies {@code count} bytes from {@code src} at {@code srcOffset} into {@code dst} at {@code index}. */
    static void copy(MemorySegment src, long srcOffset, DirectBuffer dst, int index, long count) {
        if (count == 0) {
            return;
        }
        final byte[] array = dst.byteArray();
        if (array != null) {
            MemorySegment.copy(src, ValueLayout.JAVA_BYTE, srcOffset, array,
                dst.wrapAdjustment() + index, (int) count);
        } else {
            PayloadCopy.copy(src, srcOffset, EVERYTHING, dst.addressOffset() + index, count);
        }
    }

    /** Copies {@code count} bytes from {@code src} at {@code index} into {@code dst} at {@code dstOffset}. */
    static void copy(DirectBuffer src, int index, MemorySegment dst, long dstOffset, long count) {
        if (count == 0) {
            return;
        }
        final byte[] array = src.byteArray();
        if (array != null) {
            MemorySegment.copy(array, src.wrapAdjustment() + index, dst, ValueLayout.JAVA_BYTE, dstOffset, (int) count);
        } else {
            PayloadCopy.copy(EVERYTHING, src.addressOffset() + index, dst, dstOffset, count);
        }
    }

    /** Copies {@code count} bytes from {@code src} at {@code index} into {@code dst} at {@code dstIndex}. */
    static void copy(DirectBuffer src, int index, MutableDirectBuffer dst, int dstIndex, int count) {
        if (count == 0) {
            return;
        }
        if (src.byteArray() != null || dst.byteArray() != null) {
            dst.putBytes(dstIndex, src, index, count);
        } else {
            PayloadCopy.copy(EVERYTHING, src.addressOffset() + index,
                EVERYTHING, dst.addressOffset() + dstIndex, count);
        }
    }
}
