package org.gexj.rma;

import org.gexj.rma.wire.VisShapeFlyweight;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A damaged packed VIS message is refused, naming what is out of bounds, before anything of it moves. */
class VisAmChecksTest {
    private static String refused(Runnable check) {
        return assertThrows(IllegalStateException.class, check::run).getMessage();
    }

    @Test
    void pieceListsAndPiecesOutsideTheirBoundsAreRefused() {
        assertEquals(160, VisAmChecks.checkList(10, 16, 160));
        assertTrue(refused(() -> VisAmChecks.checkList(11, 16, 160)).contains("11 pieces in a payload of 160"));
        assertTrue(refused(() -> VisAmChecks.checkList(-1, 8, 160)).contains("-1 pieces"));
        VisAmChecks.checkPiece(4088, 8, 4096, 100, 108);
        assertTrue(refused(() -> VisAmChecks.checkPiece(4090, 8, 4096, 100, 108)).contains("piece [4090, 4098)"));
        assertTrue(refused(() -> VisAmChecks.checkPiece(-8, 8, 4096, 100, 108)).contains("piece [-8, 0)"));
        assertTrue(refused(() -> VisAmChecks.checkPiece(0, 8, 4096, 101, 108)).contains("from 101 beyond the message"));
        assertTrue(refused(() -> VisAmChecks.checkPiece(0, -1, 4096, 0, 108)).contains("piece [0, -1)"));
    }

    @Test
    void shapesOutsideTheSegmentOrThePayloadAreRefused() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment message = arena.allocate(VisShapeFlyweight.length(VisShapeFlyweight.MAX_LEVELS + 1));
            final long a = message.address();
            final VisShape shape = new VisShape();
            // 4 rows of 10 elements of 8 bytes, rows 100 bytes apart: the last byte at 3 * 100 + 9 * 8 + 7 = 379
            final long header = VisShapeFlyweight.write(a, 0, 8, new long[] {8, 100}, new long[] {10, 4}, 0, 2, 0, 40);
            assertEquals(header, VisAmChecks.readShape(shape, a, header + 320));
            VisAmChecks.checkShape(shape, 0, 40, 380, 320);
            assertTrue(refused(() -> VisAmChecks.checkShape(shape, 0, 40, 379, 320)).contains("a segment of 379"));
            assertTrue(refused(() -> VisAmChecks.checkShape(shape, 1, 40, 380, 320)).contains("elements [1, 41)"));
            assertTrue(refused(() -> VisAmChecks.checkShape(shape, 0, 40, 380, 319)).contains("in 319 bytes"));
            assertTrue(refused(() -> VisAmChecks.readShape(shape, a, header - 1)).contains("a shape of 2 levels"));
            VisShapeFlyweight.write(a, 0, 8, new long[] {8, 100}, new long[] {10, 0}, 0, 2, 0, 40);
            assertTrue(refused(() -> VisAmChecks.readShape(shape, a, header)).contains("count[1] 0"));
            VisShapeFlyweight.write(a, 0, 8, new long[9], new long[9], 0, 9, 0, 0);
            assertTrue(refused(() -> VisAmChecks.readShape(shape, a, 1 << 10)).contains("a shape of 9 levels"));
            assertTrue(refused(() -> VisAmChecks.readShape(shape, a, 39)).contains("a shape of -1 levels"));
        }
    }
}
