package org.gexj.internal;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Every copy path (loads and stores up to {@link PayloadCopy#SMALL_COPY_MAX}, the JDK's copy below
 * {@link PayloadCopy#MEMCPY_MIN}, {@code memcpy} from there) copies exactly and refuses what the JDK's refuses.
 */
class PayloadCopyTest {
    private static void pattern(MemorySegment s, int seed) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + seed));
        }
    }

    @Test
    void copiesExactlyTheRangeOnEitherSideOfTheThresholds() {
        final long min = PayloadCopy.MEMCPY_MIN;
        final List<Long> sizes = new ArrayList<>();
        for (long n = 0; n <= PayloadCopy.SMALL_COPY_MAX + 2; n++) {
            sizes.add(n);
        }
        sizes.addAll(List.of(min - 1, min, min + 1, 3 * min + 5, 1L << 20));
        try (Arena arena = Arena.ofConfined()) {
            for (long n : sizes) {
                final MemorySegment src = arena.allocate(n + 16);
                final MemorySegment dst = arena.allocate(n + 32);
                pattern(src, 1);
                pattern(dst, 2);
                PayloadCopy.copy(src, 3, dst, 9, n);
                for (long i = 0; i < dst.byteSize(); i++) {
                    final byte expected = i >= 9 && i < 9 + n ? (byte) ((i - 6) * 13 + 1) : (byte) (i * 13 + 2);
                    if (dst.get(ValueLayout.JAVA_BYTE, i) != expected) {
                        throw new AssertionError("n=" + n + ": byte " + i + " is " + dst.get(ValueLayout.JAVA_BYTE, i)
                            + ", expected " + expected);
                    }
                }
            }
        }
    }

    @Test
    void refusesWhatTheJdkCopyRefusesAndWritesNothing() {
        refusesAndCopiesOverlapsAsMemmove(PayloadCopy.SMALL_COPY_MAX);
        refusesAndCopiesOverlapsAsMemmove(Math.max(PayloadCopy.MEMCPY_MIN, 4096));
    }

    private static void refusesAndCopiesOverlapsAsMemmove(long n) {
        final MemorySegment src;
        try (Arena arena = Arena.ofConfined()) {
            src = arena.allocate(n);
            final MemorySegment dst = arena.allocate(n);
            pattern(dst, 5);
            assertThrows(IndexOutOfBoundsException.class, () -> PayloadCopy.copy(src, 1, dst, 0, n));
            assertThrows(IndexOutOfBoundsException.class, () -> PayloadCopy.copy(src, 0, dst, 1, n));
            assertThrows(IndexOutOfBoundsException.class, () -> PayloadCopy.copy(src, -1, dst, 0, n - 1));
            assertThrows(IllegalArgumentException.class, () -> PayloadCopy.copy(src, 0, dst.asReadOnly(), 0, n));
            assertEquals((byte) 5, dst.get(ValueLayout.JAVA_BYTE, 0), "nothing written");
            // overlapping ranges copy as memmove does, forwards and backwards
            pattern(dst, 0);
            PayloadCopy.copy(dst, 0, dst, 8, n - 8);
            assertEquals((byte) 0, dst.get(ValueLayout.JAVA_BYTE, 8), "n=" + n);
            assertEquals((byte) ((n - 9) * 13), dst.get(ValueLayout.JAVA_BYTE, n - 1), "n=" + n);
            pattern(dst, 0);
            PayloadCopy.copy(dst, 8, dst, 0, n - 8);
            assertEquals((byte) (8 * 13), dst.get(ValueLayout.JAVA_BYTE, 0), "n=" + n);
            assertEquals((byte) ((n - 1) * 13), dst.get(ValueLayout.JAVA_BYTE, n - 9), "n=" + n);
        }
        final MemorySegment live = Arena.ofAuto().allocate(n);
        assertThrows(IllegalStateException.class, () -> PayloadCopy.copy(src, 0, live, 0, n), "closed source");
        assertThrows(IllegalStateException.class, () -> PayloadCopy.copy(live, 0, src, 0, n), "closed destination");
        confinedSegmentsRefuseOtherThreads(n);
    }

    /** The liveness check reads no byte of either segment, so confinement is checked apart: as the JDK's copy does. */
    private static void confinedSegmentsRefuseOtherThreads(long n) {
        try (Arena confined = Arena.ofConfined(); Arena shared = Arena.ofShared()) {
            final MemorySegment mine = confined.allocate(n);
            final MemorySegment open = shared.allocate(n);
            pattern(mine, 3);
            pattern(open, 4);
            final Throwable[] thrown = new Throwable[2];
            final Thread other = Thread.ofPlatform().start(() -> {
                try {
                    PayloadCopy.copy(open, 0, mine, 0, n);
                } catch (Throwable t) {
                    thrown[0] = t;
                }
                try {
                    PayloadCopy.copy(mine, 0, open, 0, n);
                } catch (Throwable t) {
                    thrown[1] = t;
                }
            });
            try {
                other.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            assertEquals(WrongThreadException.class, thrown[0] == null ? null : thrown[0].getClass(), "destination");
            assertEquals(WrongThreadException.class, thrown[1] == null ? null : thrown[1].getClass(), "source");
            assertEquals((byte) 3, mine.get(ValueLayout.JAVA_BYTE, 0), "nothing written");
            assertEquals((byte) (13 + 4), open.get(ValueLayout.JAVA_BYTE, 1), "nothing written");
        }
    }
}
