package org.gexj.rma.wire;

import org.agrona.UnsafeApi;

/**
 * The header of a packed strided VIS message ({@code gex_VIS_Strided*} over active messages): the target's side of the
 * shape and the run of its elements that the message moves, in the shape's order (the lowest level fastest). A put's
 * bytes follow, element after element; a get's reply carries the bytes alone. Native byte order, as
 * {@link VisPieceFlyweight}. The shape travels instead of an offset per element: a put of 8-byte elements is its bytes
 * and one header a message, not twice its bytes.
 * <pre>
 *   0      8      16       24      32      40                  40 + 8 L           40 + 16 L
 *   | base | elem | levels | first | count | stride[0] ... [L-1] | count[0] ... [L-1] | data (a put's)
 * </pre>
 * base: the shape's first element in the target's segment; elem: the bytes of an element (the levels contiguous on
 * both sides folded in); levels: L, at most {@link #MAX_LEVELS}; first and count: the message's elements.
 */
public final class VisShapeFlyweight {
    /** The most levels a shape travels with. */
    public static final int MAX_LEVELS = 8;
    private static final int BASE = 0;
    private static final int ELEM = 8;
    private static final int LEVELS = 16;
    private static final int FIRST = 24;
    private static final int COUNT = 32;
    private static final int STRIDES = 40;

    private VisShapeFlyweight() {
    }

    /** The header's bytes for {@code levels} levels. */
    public static long length(int levels) {
        return STRIDES + 16L * levels;
    }

    /** The least bytes a header has, for a check before {@link #levels} is read. */
    public static long minLength() {
        return STRIDES;
    }

    /**
     * Writes a header at {@code address}: levels {@code [from, to)} of {@code strides} and {@code counts}.
     *
     * @return the header's bytes
     */
    public static long write(long address, long base, long elem, long[] strides, long[] counts, int from, int to,
                             long first, long count) {
        final int levels = to - from;
        UnsafeApi.putLong(address + BASE, base);
        UnsafeApi.putLong(address + ELEM, elem);
        UnsafeApi.putLong(address + LEVELS, levels);
        UnsafeApi.putLong(address + FIRST, first);
        UnsafeApi.putLong(address + COUNT, count);
        for (int k = 0; k < levels; k++) {
            UnsafeApi.putLong(address + STRIDES + 8L * k, strides[from + k]);
            UnsafeApi.putLong(address + STRIDES + 8L * (levels + k), counts[from + k]);
        }
        return length(levels);
    }

    public static long base(long address) {
        return UnsafeApi.getLong(address + BASE);
    }

    public static long elem(long address) {
        return UnsafeApi.getLong(address + ELEM);
    }

    public static long levels(long address) {
        return UnsafeApi.getLong(address + LEVELS);
    }

    public static long first(long address) {
        return UnsafeApi.getLong(address + FIRST);
    }

    public static long count(long address) {
        return UnsafeApi.getLong(address + COUNT);
    }

    /** Reads the {@code levels} strides and counts into {@code strides} and {@code counts} from index 0. */
    public static void shape(long address, int levels, long[] strides, long[] counts) {
        for (int k = 0; k < levels; k++) {
            strides[k] = UnsafeApi.getLong(address + STRIDES + 8L * k);
            counts[k] = UnsafeApi.getLong(address + STRIDES + 8L * (levels + k));
        }
    }
}
