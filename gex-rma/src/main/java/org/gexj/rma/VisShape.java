package org.gexj.rma;

import org.gexj.rma.wire.VisShapeFlyweight;

/**
 * One side of a strided shape, for {@link VisAmEngine}'s strided messages, and the copy of a run of its elements
 * between the shape in native memory and contiguous bytes: element {@code (i_0, ..., i_levels-1)} lies at
 * {@code base + sum(i_k * strides[k])}, {@code 0 <= i_k < counts[k]}, the lowest level fastest; each is {@code elem}
 * bytes. The callers check every element of the shape in range and each run within the shape; the copy does not check
 * again. Reused: a thread's, or an operation slot's; not thread-safe.
 */
final class VisShape {
    long base;
    long elem;
    int levels;
    final long[] strides = new long[VisShapeFlyweight.MAX_LEVELS];
    final long[] counts = new long[VisShapeFlyweight.MAX_LEVELS];
    /** The elements of the whole shape. */
    long elements;
    /** Elements a message of the operation holds (a get's slot). */
    long perMessage;
    private final long[] index = new long[VisShapeFlyweight.MAX_LEVELS];

    /** This side: {@code base}, elements of {@code elem} bytes, levels {@code [from, to)} of the arrays. */
    void set(long base, long elem, long[] strides, long[] counts, int from, int to) {
        this.base = base;
        this.elem = elem;
        this.levels = to - from;
        long n = 1;
        for (int k = 0; k < levels; k++) {
            this.strides[k] = strides[from + k];
            this.counts[k] = counts[from + k];
            n *= counts[from + k];
        }
        this.elements = n;
    }

    /**
     * Copies elements {@code [first, first + n)} of the shape in the memory at {@code address}: into it from
     * {@code packed} where {@code toShape}, else out of it into {@code packed}.
     */
    void copy(boolean toShape, long address, long first, long n, long packed) {
        if (n <= 0) {
            return;
        }
        long rest = first;
        long offset = address + base;
        for (int k = 0; k < levels; k++) {
            index[k] = rest % counts[k];
            rest /= counts[k];
            offset += index[k] * strides[k];
        }
        long at = packed;
        if (levels == 0) {
            move(toShape, offset, at, elem);
            return;
        }
        final long step = strides[0];
        final long inner = counts[0];
        long left = n;
        while (true) {
            final long run = Math.min(inner - index[0], left);
            for (long j = 0; j < run; j++) {
                move(toShape, offset, at, elem);
                offset += step;
                at += elem;
            }
            left -= run;
            if (left == 0) {
                return;
            }
            offset -= inner * step; // the lowest index ran to its count: back to 0, and carry
            index[0] = 0;
            for (int k = 1; k < levels; k++) {
                index[k]++;
                offset += strides[k];
                if (index[k] < counts[k]) {
                    break;
                }
                offset -= index[k] * strides[k];
                index[k] = 0;
            }
        }
    }

    private static void move(boolean toShape, long element, long packed, long elem) {
        if (toShape) {
            VisAmEngine.copy(packed, element, elem);
        } else {
            VisAmEngine.copy(element, packed, elem);
        }
    }
}
