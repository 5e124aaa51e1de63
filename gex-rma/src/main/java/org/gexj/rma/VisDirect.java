package org.gexj.rma;

import java.lang.foreign.MemorySegment;

/**
 * {@link Vis} transfers on cross-mapped memory without a chunk list ({@link VisPlan}), for the common shapes: a strided
 * one with its ranges checked from the extremes of the shape and its destination found disjoint from the shape (each
 * level, by growing stride, steps over all of the levels below it), then copied level by level; vector and indexed
 * ones whose two lists pair up piece by piece (same count, same lengths), checked in one pass over the lists
 * (lengths, ranges, destinations ascending and apart) and copied in a second. What this cannot prove (a range outside
 * either side, a destination out of order or overlapping, unpaired lists, any argument the general path refuses, a
 * buffer it would not copy directly) it leaves to the general path, which checks every chunk and names what is wrong.
 */
final class VisDirect {
    private VisDirect() {
    }

    /**
     * Copies the transfer if its shape allows, checked as the general path checks it.
     *
     * @return false, having moved and checked nothing of consequence, where the general path must run instead
     */
    static boolean strided(CrossMappedRmaEngine engine, boolean put, int rank, long remoteSize, MemorySegment local,
                        long remoteBase, long[] remoteStrides, long localBase, long[] localStrides, long elemSize,
                        long[] count, int levels) {
        if (local == null || elemSize <= 0 || levels < 0 || count == null || remoteStrides == null
            || localStrides == null || levels > count.length || levels > remoteStrides.length
            || levels > localStrides.length || levels > 8) {
            return false;
        }
        long elem = elemSize;
        int first = 0;
        for (int k = 0; k < levels; k++) {
            if (count[k] <= 0) {
                return false; // nothing to move, or a negative count the general path names
            }
        }
        // the lowest levels contiguous on both sides are one larger element, as VisPlan folds them
        while (first < levels && remoteStrides[first] == elem && localStrides[first] == elem) {
            if (Math.multiplyHigh(elem, count[first]) != 0) {
                return false;
            }
            elem *= count[first];
            first++;
        }
        if (!inRange(remoteBase, remoteStrides, elem, count, first, levels, remoteSize)
            || !inRange(localBase, localStrides, elem, count, first, levels, local.byteSize())
            || !disjoint(put ? remoteStrides : localStrides, elem, count, first, levels)) {
            return false;
        }
        return engine.copyStrided(put, rank, local, remoteBase, remoteStrides, localBase, localStrides, elem, count,
            first, levels);
    }

    /**
     * A vector or indexed transfer whose lists pair up: {@code count} pieces on each side, piece i of
     * {@code lengths[i]} bytes (or {@code length} each where {@code lengths} is null) at {@code remoteOffsets[i]} and
     * {@code localOffsets[i]}; a vector's other side's lengths, {@code sameLengths}, must be the same.
     *
     * @return false, having moved nothing, where the general path must run instead
     */
    static boolean paired(CrossMappedRmaEngine engine, boolean put, int rank, long remoteSize, MemorySegment local,
                          int count, long[] remoteOffsets, long[] localOffsets, long[] lengths, long[] sameLengths,
                          long length) {
        if (local == null || count <= 0 || remoteOffsets == null || localOffsets == null
            || count > remoteOffsets.length || count > localOffsets.length
            || (lengths == null ? length < 0 : sameLengths == null || count > lengths.length
            || count > sameLengths.length)) {
            return false;
        }
        final long localSize = local.byteSize();
        final long[] to = put ? remoteOffsets : localOffsets;
        long end = Long.MIN_VALUE;
        for (int i = 0; i < count; i++) {
            final long n = lengths == null ? length : lengths[i];
            final long r = remoteOffsets[i];
            final long l = localOffsets[i];
            if (n < 0 || r < 0 || r > remoteSize - n || l < 0 || l > localSize - n || to[i] < end
                || lengths != null && sameLengths[i] != n) {
                return false;
            }
            if (n > 0) {
                end = to[i] + n;
            }
        }
        return engine.copyPaired(put, rank, local, count, remoteOffsets, localOffsets, lengths, length);
    }

    /** Whether every element of the shape lies in [0, size), computed from its lowest and highest start. */
    static boolean inRange(long base, long[] strides, long elem, long[] count, int first, int levels,
                                   long size) {
        long low = base;
        long high = base;
        for (int k = first; k < levels; k++) {
            final long span;
            try {
                span = Math.multiplyExact(strides[k], count[k] - 1);
            } catch (ArithmeticException e) {
                return false;
            }
            if (span < 0) {
                low += span;
            } else {
                high += span;
            }
            if (low < 0 || high < 0) {
                return false;
            }
        }
        return low >= 0 && high <= size - elem;
    }

    /**
     * A sufficient condition for no two elements to overlap: with the levels (those of more than one element) taken by
     * growing absolute stride, each stride is at least the extent of everything below it. At most 8 levels, picked
     * smallest first without sorting into an array (nothing is allocated).
     */
    static boolean disjoint(long[] strides, long elem, long[] count, int first, int levels) {
        int taken = 0;
        long extent = elem;
        while (true) {
            int next = -1;
            for (int k = first; k < levels; k++) {
                if (count[k] > 1 && (taken & 1 << k) == 0
                    && (next < 0 || Math.abs(strides[k]) < Math.abs(strides[next]))) {
                    next = k;
                }
            }
            if (next < 0) {
                return true;
            }
            taken |= 1 << next;
            final long stride = Math.abs(strides[next]);
            if (stride < extent) {
                return false;
            }
            extent += stride * (count[next] - 1); // inRange bounded it by the size
        }
    }
}
