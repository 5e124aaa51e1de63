package org.gexj.internal;

import org.gexj.internal.ffm.StringH;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * Payload copies between native memory: the JDK's copy below {@link #MEMCPY_MIN} bytes, the C library's
 * {@code memcpy} from there on.
 *
 * <p>Why two: a payload is written where the peer's core read or wrote last (its ring, its segment), and read where
 * the peer's core wrote last. The JDK's copy stub reads every destination line before writing it; glibc's
 * {@code memcpy} from a few KiB on ({@code rep movsb}) writes whole lines without that read. Two threads copying
 * 64 KiB back and forth between two buffers took 22 µs per round trip with {@code MemorySegment.copy} and 9.1 µs
 * with {@code memcpy} (the same as GASNet-EX's smp AMLong 64 KiB round trip on this machine); at 1 KiB the JDK's
 * copy is faster, as the down call costs more than it saves. Heap memory always takes the JDK's copy.
 */
public final class PayloadCopy {
    /** From this many bytes on, native-to-native copies call {@code memcpy}; {@code GEX_MEMCPY_MIN} overrides it. */
    public static final long MEMCPY_MIN = memcpyMin();

    private PayloadCopy() {
    }

    private static long memcpyMin() {
        final String value = System.getenv("GEX_MEMCPY_MIN");
        if (value == null || value.isBlank()) {
            return 4096;
        }
        try {
            final long min = Long.parseLong(value.trim());
            if (min >= 0) {
                return min;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("GEX_MEMCPY_MIN=" + value + " is not a byte count in [0, "
            + Long.MAX_VALUE + "]");
    }

    /**
     * Copies {@code count} bytes of {@code src} from {@code srcOffset} to {@code dst} at {@code dstOffset}, with
     * {@link MemorySegment#copy(MemorySegment, long, MemorySegment, long, long)}'s checks: both ranges in bounds,
     * both segments alive and accessible from this thread, the destination writable.
     */
    public static void copy(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long count) {
        if (count < MEMCPY_MIN || !src.isNative() || !dst.isNative()) {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, count);
            return;
        }
        Objects.checkFromIndexSize(srcOffset, count, src.byteSize());
        Objects.checkFromIndexSize(dstOffset, count, dst.byteSize());
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("copy into a read-only segment");
        }
        // touching one byte of each checks liveness and confinement as the JDK's copy would
        src.get(ValueLayout.JAVA_BYTE, srcOffset);
        dst.get(ValueLayout.JAVA_BYTE, dstOffset);
        final long from = src.address() + srcOffset;
        final long to = dst.address() + dstOffset;
        if (from < to + count && to < from + count) {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, count); // overlapping: memmove semantics
            return;
        }
        StringH.memcpy(to, from, count);
    }

    /**
     * The C library's {@code memcpy} on raw addresses, for callers that have checked both ranges as {@link #copy}
     * does (mapped, live, accessible, writable) and that they do not overlap.
     */
    public static void memcpy(long to, long from, long count) {
        StringH.memcpy(to, from, count);
    }
}
