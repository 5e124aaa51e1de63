package org.gexj;

import org.gexj.spi.AttachedSegments;
import org.gexj.spi.SegmentDescriptor;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SegmentTest {
    private final Segment segment = new Segment(new AttachedSegments(Arena.ofAuto().allocate(4096),
        new SegmentDescriptor[] {new SegmentDescriptor(0, 4096, new byte[0]),
            new SegmentDescriptor(0, 8192, new byte[0])}),
        0);

    @Test
    void rangesInsideEveryPeersSegmentPass() {
        assertDoesNotThrow(() -> segment.checkRemote(1, 0, 8192));
        assertDoesNotThrow(() -> segment.checkRemote(1, 8192, 0));
        assertDoesNotThrow(() -> segment.checkLocal(4095, 1));
    }

    @Test
    void badRangesNameTheRangeAndTheLimit() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> segment.checkRemote(0, 4090, 7));
        assertTrue(e.getMessage().contains("[4090, 4097)") && e.getMessage().contains("4096"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> segment.checkRemote(1, -1, 1));
        assertThrows(IllegalArgumentException.class, () -> segment.checkRemote(1, Long.MAX_VALUE, 2));
        assertThrows(IllegalArgumentException.class, () -> segment.checkRemote(1, 0, -1));
        final IllegalArgumentException rank = assertThrows(IllegalArgumentException.class,
            () -> segment.checkRemote(2, 0, 1));
        assertTrue(rank.getMessage().contains("rank 2") && rank.getMessage().contains("[0, 2)"), rank.getMessage());
    }
}
