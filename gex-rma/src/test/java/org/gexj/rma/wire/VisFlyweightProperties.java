package org.gexj.rma.wire;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

/** {@link VisPieceFlyweight}'s two list forms and {@link VisShapeFlyweight}'s header round-trip. */
class VisFlyweightProperties {
    @Test
    void pieceListsRoundTripInBothForms() {
        qt().withExamples(200).forAll(longs().all()).checkAssert(seed -> {
            final Random random = new Random(seed);
            final int pieces = 1 + random.nextInt(100);
            final long[] offsets = new long[pieces];
            final long[] lengths = new long[pieces];
            final long even = random.nextBoolean() ? 1 + random.nextInt(1 << 20) : 0;
            for (int i = 0; i < pieces; i++) {
                offsets[i] = random.nextLong() >>> 1;
                lengths[i] = even > 0 ? even : 1 + random.nextInt(1 << 20);
            }
            final int first = random.nextInt(pieces);
            final int end = first + 1 + random.nextInt(pieces - first);
            try (Arena arena = Arena.ofConfined()) {
                final MemorySegment out = arena.allocate(16L * pieces);
                final long written = VisPieceFlyweight.write(out.address(), offsets, even > 0 ? null : lengths, even,
                    first, end);
                final int stride = VisPieceFlyweight.stride(even);
                assertEquals((long) (end - first) * stride, written);
                for (int i = first; i < end; i++) {
                    assertEquals(offsets[i], VisPieceFlyweight.offset(out.address(), stride, i - first));
                    assertEquals(lengths[i], VisPieceFlyweight.length(out.address(), even, i - first));
                }
            }
        });
    }

    @Test
    void shapeHeadersRoundTrip() {
        qt().withExamples(200).forAll(longs().all()).checkAssert(seed -> {
            final Random random = new Random(seed);
            final int from = random.nextInt(3);
            final int levels = random.nextInt(VisShapeFlyweight.MAX_LEVELS + 1);
            final long[] strides = new long[from + levels];
            final long[] counts = new long[from + levels];
            for (int k = 0; k < from + levels; k++) {
                strides[k] = random.nextLong();
                counts[k] = 1 + (random.nextLong() >>> 2);
            }
            final long base = random.nextLong() >>> 1;
            final long elem = 1 + (random.nextLong() >>> 2);
            final long first = random.nextLong() >>> 1;
            final long count = random.nextLong() >>> 1;
            try (Arena arena = Arena.ofConfined()) {
                final MemorySegment out = arena.allocate(VisShapeFlyweight.length(VisShapeFlyweight.MAX_LEVELS));
                final long a = out.address();
                assertEquals(VisShapeFlyweight.length(levels),
                    VisShapeFlyweight.write(a, base, elem, strides, counts, from, from + levels, first, count));
                assertEquals(base, VisShapeFlyweight.base(a));
                assertEquals(elem, VisShapeFlyweight.elem(a));
                assertEquals(levels, VisShapeFlyweight.levels(a));
                assertEquals(first, VisShapeFlyweight.first(a));
                assertEquals(count, VisShapeFlyweight.count(a));
                final long[] readStrides = new long[VisShapeFlyweight.MAX_LEVELS];
                final long[] readCounts = new long[VisShapeFlyweight.MAX_LEVELS];
                VisShapeFlyweight.shape(a, levels, readStrides, readCounts);
                for (int k = 0; k < levels; k++) {
                    assertEquals(strides[from + k], readStrides[k]);
                    assertEquals(counts[from + k], readCounts[k]);
                }
            }
        });
    }
}
