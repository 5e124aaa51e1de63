package org.gexj.rma.wire;

import org.agrona.UnsafeApi;

/**
 * The piece list at the start of a packed VIS message's payload, in one of two forms, native byte order (the ranks
 * share a host's byte order: all GEX/J conduits run one architecture per job). A put's bytes follow the list, piece
 * after piece; a get's reply carries the bytes alone.
 * <ul>
 *   <li>Listed: per piece, its offset in the target's segment and its length, 8 bytes each.
 *   <li>Even: every piece has the same length, which the message's args carry; per piece, its offset alone. Indexed
 *       and strided transfers, and vectors of equal pieces, take this form: a list of 8-byte pieces is half the
 *       message instead of two thirds.
 * </ul>
 * <pre>
 *   listed:  0        8        16       24       32
 *            | offset | length | offset | length | ... | data of piece 0 | data of piece 1 | ...
 *   even:    0        8        16
 *            | offset | offset | ... | data of piece 0 | data of piece 1 | ...
 * </pre>
 * Reads and writes go by native address (the staging buffer, a delivered payload): the callers check the list's
 * bounds once per message, and each piece's range against the segment as they use it.
 */
public final class VisPieceFlyweight {
    /** Bytes per piece in a listed list. */
    public static final int PIECE = 16;
    /** Bytes per piece in an even list. */
    public static final int OFFSET = 8;

    private VisPieceFlyweight() {
    }

    /** Bytes per piece of a list: {@link #OFFSET} where every piece has {@code even} > 0 bytes, else {@link #PIECE}. */
    public static int stride(long even) {
        return even > 0 ? OFFSET : PIECE;
    }

    /**
     * Writes pieces {@code first} to {@code end} (exclusive) of the lists at {@code address}: offsets alone where
     * {@code even} > 0 (every length is {@code even}), else offsets and lengths.
     *
     * @return the bytes written
     */
    public static long write(long address, long[] offsets, long[] lengths, long even, int first, int end) {
        long at = address;
        if (even > 0) {
            for (int i = first; i < end; i++) {
                UnsafeApi.putLong(at, offsets[i]);
                at += OFFSET;
            }
        } else {
            for (int i = first; i < end; i++) {
                UnsafeApi.putLong(at, offsets[i]);
                UnsafeApi.putLong(at + 8, lengths[i]);
                at += PIECE;
            }
        }
        return at - address;
    }

    /** Piece {@code piece}'s offset in a list of {@code stride} bytes a piece at {@code address}. */
    public static long offset(long address, int stride, int piece) {
        return UnsafeApi.getLong(address + (long) piece * stride);
    }

    /** Piece {@code piece}'s length: {@code even} where that is > 0, else the listed one. */
    public static long length(long address, long even, int piece) {
        return even > 0 ? even : UnsafeApi.getLong(address + (long) piece * PIECE + 8);
    }
}
