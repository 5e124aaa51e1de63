package org.gexj.rma;

import org.gexj.rma.wire.VisShapeFlyweight;

/**
 * What {@link VisAmEngine}'s handlers check of a packed VIS message before its bytes move by address: its list or shape
 * within the payload, and every piece (or the whole shape) within the segment. A message that fails was damaged or
 * forged on its way: each check throws {@link IllegalStateException} naming what is out of bounds, and nothing of the
 * message has moved.
 */
final class VisAmChecks {
    private VisAmChecks() {
    }

    /** Reads a strided message's shape into {@code shape}, checked against the payload. @return the header's bytes */
    static long readShape(VisShape shape, long address, long length) {
        final long levels = length < VisShapeFlyweight.minLength() ? -1 : VisShapeFlyweight.levels(address);
        if (levels < 0 || levels > VisShapeFlyweight.MAX_LEVELS || VisShapeFlyweight.length((int) levels) > length) {
            throw new IllegalStateException("a damaged VIS message: a shape of " + levels + " levels in a payload of "
                + length + " bytes");
        }
        VisShapeFlyweight.shape(address, (int) levels, shape.strides, shape.counts);
        shape.levels = (int) levels;
        shape.base = VisShapeFlyweight.base(address);
        shape.elem = VisShapeFlyweight.elem(address);
        long elements = 1;
        for (int k = 0; k < levels; k++) {
            final long c = shape.counts[k];
            if (c <= 0 || Math.multiplyHigh(elements, c) != 0 || elements * c < 0) {
                throw new IllegalStateException("a damaged VIS message: count[" + k + "] " + c);
            }
            elements *= c;
        }
        shape.elements = elements;
        return VisShapeFlyweight.length((int) levels);
    }

    /**
     * The run of elements {@code [first, first + n)} lies in the shape, its bytes in {@code room}, and every element of
     * the shape in a segment of {@code size} bytes.
     */
    static void checkShape(VisShape shape, long first, long n, long size, long room) {
        if (shape.elem <= 0 || n < 0 || first < 0 || first > shape.elements - n || n > room / shape.elem
            || !VisDirect.inRange(shape.base, shape.strides, shape.elem, shape.counts, 0, shape.levels, size)) {
            throw new IllegalStateException("a damaged VIS message: elements [" + first + ", " + (first + n) + ") of "
                + shape.elem + " bytes of a shape of " + shape.elements + " from " + shape.base + ", in " + room
                + " bytes and a segment of " + size);
        }
    }

    /** @return where the bytes after a list of {@code pieces} start, checked to lie in a payload of {@code length} */
    static long checkList(int pieces, int stride, long length) {
        final long list = (long) pieces * stride;
        if (pieces < 0 || list > length) {
            throw new IllegalStateException("a damaged VIS message: a list of " + pieces + " pieces in a payload of "
                + length + " bytes");
        }
        return list;
    }

    /** A piece of {@code n} bytes at {@code offset} in a segment of {@code size}, and at {@code at} of a message. */
    static void checkPiece(long offset, long n, long size, long at, long length) {
        if (n < 0 || offset < 0 || offset > size - n || at > length - n) {
            throw new IllegalStateException("a damaged VIS message: piece [" + offset + ", " + (offset + n)
                + ") outside the segment [0, " + size + "), or its bytes from " + at + " beyond the message's "
                + length);
        }
    }
}
