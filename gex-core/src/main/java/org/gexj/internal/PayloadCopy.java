package org.gexj.internal;

import org.agrona.UnsafeApi;
import org.gexj.internal.ffm.StringH;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Payload copies between native memory: loads and stores up to {@link #SMALL_COPY_MAX} bytes, the JDK's copy below
 * {@link #MEMCPY_MIN} bytes, the C library's {@code memcpy} from there on.
 *
 * <p>Why two: a payload is written where the peer's core read or wrote last (its ring, its segment), and read where
 * the peer's core wrote last, and there the JDK's copy stub is the slower: two threads copying 64 KiB back and forth
 * between two buffers took 22 µs per round trip with {@code MemorySegment.copy} and 9.1 µs with {@code memcpy} (the
 * same as GASNet-EX's smp AMLong 64 KiB round trip on this machine), and smp testam's 2 KiB Medium round trip 0.77 us
 * against 0.56-0.61; at 1 KiB neither won, below it the down call costs more than it saves. The ranks' {@code memcpy}
 * is its vector loop, not {@code rep movsb}, by the launcher's {@code GLIBC_TUNABLES} (gex-launch's
 * {@code GexRun.avoidRepMovsb} says why). Heap memory always takes the JDK's copy.
 *
 * <p>Up to {@link #SMALL_COPY_MAX} bytes, native-to-native copies are plain loads and stores ({@link #copySmall}):
 * on this AVX-512 machine the JDK's stub copies a few bytes with masked vector moves, and testam's Medium round trip
 * over smp (a copy on each side) took 0.54-0.60 us for 1-16 bytes against 0.42 for 0 bytes; with the JVM limited to
 * AVX2 ({@code -XX:UseAVX=2}), 0.40-0.46.
 */
public final class PayloadCopy {
    /** From this many bytes on, native-to-native copies call {@code memcpy}; {@code GEX_MEMCPY_MIN} overrides it. */
    public static final long MEMCPY_MIN = memcpyMin();
    /** Up to this many bytes, native-to-native copies are loads and stores in Java ({@link #copySmall}). */
    public static final long SMALL_COPY_MAX = 32;

    private PayloadCopy() {
    }

    private static long memcpyMin() {
        final String value = System.getenv("GEX_MEMCPY_MIN");
        if (value == null || value.isBlank()) {
            return 2048;
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
        final boolean small = count <= SMALL_COPY_MAX;
        if (count <= 0 || (!small && count < MEMCPY_MIN) || !src.isNative() || !dst.isNative()) {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, count);
            return;
        }
        Objects.checkFromIndexSize(srcOffset, count, src.byteSize());
        Objects.checkFromIndexSize(dstOffset, count, dst.byteSize());
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("copy into a read-only segment");
        }
        checkAccessible(src);
        checkAccessible(dst);
        final long from = src.address() + srcOffset;
        final long to = dst.address() + dstOffset;
        if (small) {
            copySmall(from, to, count);
            return;
        }
        if (from < to + count && to < from + count) {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, count); // overlapping: memmove semantics
            return;
        }
        StringH.memcpy(to, from, count);
    }

    /**
     * Liveness and confinement, as the JDK's copy checks them, without touching the memory: a load from the
     * destination (a claimed ring frame, a peer's segment) waits for a line the peer's core may hold, where a store
     * would not. Touching a byte of each for this cost an smp Medium send one such wait.
     *
     * @return true if {@code segment} is alive and this thread may access it
     */
    public static boolean accessible(MemorySegment segment) {
        return segment.scope().isAlive() && segment.isAccessibleBy(Thread.currentThread());
    }

    /** @throws IllegalStateException or WrongThreadException, as the JDK's copy, unless {@link #accessible} */
    private static void checkAccessible(MemorySegment segment) {
        if (!accessible(segment)) {
            throw segment.scope().isAlive() ? new WrongThreadException("Attempted access outside owning thread")
                : new IllegalStateException("Already closed");
        }
    }

    /**
     * Copies 1 to {@link #SMALL_COPY_MAX} bytes between raw addresses that the caller has checked, as {@code memmove}
     * would: every load comes before every store, so overlapping ranges need no test.
     */
    public static void copySmall(long from, long to, long count) {
        if (count > 2 * Long.BYTES) {
            final long last = count - Long.BYTES;
            final long a = UnsafeApi.getLong(from);
            final long b = UnsafeApi.getLong(from + Long.BYTES);
            final long c = UnsafeApi.getLong(from + last - Long.BYTES);
            final long d = UnsafeApi.getLong(from + last);
            UnsafeApi.putLong(to, a);
            UnsafeApi.putLong(to + Long.BYTES, b);
            UnsafeApi.putLong(to + last - Long.BYTES, c);
            UnsafeApi.putLong(to + last, d);
        } else if (count >= Long.BYTES) {
            final long a = UnsafeApi.getLong(from);
            final long d = UnsafeApi.getLong(from + count - Long.BYTES);
            UnsafeApi.putLong(to, a);
            UnsafeApi.putLong(to + count - Long.BYTES, d);
        } else if (count >= Integer.BYTES) {
            final int a = UnsafeApi.getInt(from);
            final int d = UnsafeApi.getInt(from + count - Integer.BYTES);
            UnsafeApi.putInt(to, a);
            UnsafeApi.putInt(to + count - Integer.BYTES, d);
        } else {
            final byte a = UnsafeApi.getByte(from);
            final byte m = UnsafeApi.getByte(from + (count >> 1));
            final byte d = UnsafeApi.getByte(from + count - 1);
            UnsafeApi.putByte(to, a);
            UnsafeApi.putByte(to + (count >> 1), m);
            UnsafeApi.putByte(to + count - 1, d);
        }
    }

    /**
     * The C library's {@code memcpy} on raw addresses, for callers that have checked both ranges as {@link #copy}
     * does (mapped, live, accessible, writable) and that they do not overlap.
     */
    public static void memcpy(long to, long from, long count) {
        StringH.memcpy(to, from, count);
    }
}
