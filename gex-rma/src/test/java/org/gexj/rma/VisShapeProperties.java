package org.gexj.rma;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

/** {@link VisShape#copy}: any run of a shape's elements, out of the shape and into it, against the shape's order. */
class VisShapeProperties {
    private static final int SPACE = 1 << 14;

    /** Element e's offset from the base, with the lowest level fastest: the order the copy must follow. */
    private static long offsetOf(long e, long[] strides, long[] counts, int levels) {
        long rest = e;
        long offset = 0;
        for (int k = 0; k < levels; k++) {
            offset += rest % counts[k] * strides[k];
            rest /= counts[k];
        }
        return offset;
    }

    @Test
    void aRunOfElementsMovesInTheShapesOrderBothWays() {
        qt().withExamples(300).forAll(longs().all()).checkAssert(seed -> {
            final Random random = new Random(seed);
            final int levels = random.nextInt(5);
            final long elem = 1 + random.nextInt(40);
            final long[] counts = new long[8];
            final long[] strides = new long[8];
            long elements = 1;
            long extent = elem;
            for (int k = 0; k < levels; k++) {
                counts[k] = 1 + random.nextInt(5);
                elements *= counts[k];
            }
            // strides that keep the elements apart (each at least the extent below it), some negative
            long low = 0;
            for (int k = 0; k < levels; k++) {
                final long stride = extent + random.nextInt(8);
                strides[k] = random.nextInt(4) == 0 ? -stride : stride;
                if (strides[k] < 0) {
                    low += strides[k] * (counts[k] - 1);
                }
                extent += stride * (counts[k] - 1);
            }
            final long base = -low + random.nextInt(16);
            final long first = random.nextInt((int) elements);
            final long n = 1 + random.nextInt((int) (elements - first));
            final VisShape shape = new VisShape();
            shape.set(base, elem, strides, counts, 0, levels);
            try (Arena arena = Arena.ofConfined()) {
                final MemorySegment memory = arena.allocate(SPACE);
                final MemorySegment packed = arena.allocate(SPACE);
                final byte[] image = new byte[SPACE];
                random.nextBytes(image);
                memory.copyFrom(MemorySegment.ofArray(image));
                // out of the shape
                shape.copy(false, memory.address(), first, n, packed.address());
                final byte[] expected = new byte[(int) (n * elem)];
                for (long e = first; e < first + n; e++) {
                    System.arraycopy(image, (int) (base + offsetOf(e, strides, counts, levels)), expected,
                        (int) ((e - first) * elem), (int) elem);
                }
                assertArrayEquals(expected, packed.asSlice(0, n * elem).toArray(ValueLayout.JAVA_BYTE),
                    "gathered elements [" + first + ", " + (first + n) + ") of " + elements);
                // into the shape: new bytes land on the run's elements, nothing else changes
                final byte[] fresh = new byte[(int) (n * elem)];
                random.nextBytes(fresh);
                packed.copyFrom(MemorySegment.ofArray(fresh));
                shape.copy(true, memory.address(), first, n, packed.address());
                for (long e = first; e < first + n; e++) {
                    System.arraycopy(fresh, (int) ((e - first) * elem), image,
                        (int) (base + offsetOf(e, strides, counts, levels)), (int) elem);
                }
                assertArrayEquals(image, memory.toArray(ValueLayout.JAVA_BYTE),
                    "scattered elements [" + first + ", " + (first + n) + ") of " + elements);
            }
        });
    }
}
