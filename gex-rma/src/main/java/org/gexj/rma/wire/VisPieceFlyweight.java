package org.gexj.rma.wire;

import org.gexj.am.Payload;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The piece list at the start of a packed VIS message's payload: per piece, its offset in the target's segment and
 * its length, 8 bytes each, native byte order (the ranks share a host's byte order: all GEX/J conduits run one
 * architecture per job). A put's bytes follow the list, piece after piece; a get's reply carries the bytes alone.
 * <pre>
 *   0        8        16       24       32
 *   | offset | length | offset | length | ... | data of piece 0 | data of piece 1 | ...
 * </pre>
 */
public final class VisPieceFlyweight {
    /** Bytes per piece in the list. */
    public static final int PIECE = 16;

    private VisPieceFlyweight() {
    }

    /** Writes pieces {@code first} to {@code end} (exclusive) of the lists. @return the bytes written */
    public static long write(MemorySegment out, long[] offsets, long[] lengths, int first, int end) {
        long at = 0;
        for (int i = first; i < end; i++) {
            out.set(ValueLayout.JAVA_LONG_UNALIGNED, at, offsets[i]);
            out.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, lengths[i]);
            at += PIECE;
        }
        return at;
    }

    public static long offset(Payload payload, int piece) {
        return payload.getLong((long) piece * PIECE);
    }

    public static long length(Payload payload, int piece) {
        return payload.getLong((long) piece * PIECE + 8);
    }
}
