package org.gexj.rma.wire;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

class PwcTagCodecProperties {
    /** Every (slot, source) a job's codec admits comes back, and the AM layer's kind bit stays clear. */
    @Test
    void slotAndSourceRoundTripAndTheAmLongKindBitStaysClear() {
        qt().forAll(integers().between(1, 1 << 20), integers().between(0, 1 << 20), integers().between(0, 255))
            .checkAssert((ranks, slotDraw, sourceDraw) -> {
                for (int bits : new int[] {32, 64}) {
                    final PwcTagCodec codec = new PwcTagCodec(bits, ranks);
                    final int slots = codec.fitsSlots(256) ? 256 : 1;
                    if (!codec.fitsSlots(slots)) {
                        continue; // too many ranks for any slot: that rank's puts go without immediates
                    }
                    final int slot = slotDraw % slots;
                    final int source = (int) ((long) sourceDraw * (ranks - 1) / 255);
                    final long tag = codec.encode(slot, source);
                    assertTrue(codec.isPwc(tag));
                    assertEquals(slot, codec.slot(tag));
                    assertEquals(source, codec.source(tag));
                    assertEquals(0, tag >>> (bits - 1), "the AM Long kind bit, which routes the write, is clear");
                    if (bits == 32) {
                        final long widened = (int) tag; // imm_data read as an int: positive, so nothing changes
                        assertTrue(codec.isPwc(widened));
                        assertEquals(slot, codec.slot(widened));
                        assertEquals(source, codec.source(widened));
                    }
                }
            });
    }

    @Test
    void amLongTagsAndOtherKindsAreNotPwcs() {
        final PwcTagCodec codec = new PwcTagCodec(32, 4);
        // an AM Long payload's tag has the top bit set (gex-am's LongTagCodec), with either direction bit
        assertFalse(codec.isPwc(0x8000_0301L));
        assertFalse(codec.isPwc(0xC000_0000L));
        assertFalse(codec.isPwc(0x1234), "bit 30 clear: another user's");
        assertTrue(codec.isPwc(codec.encode(0, 0)));
    }

    @Test
    void slotsFitWhatTheJobSizeLeavesAndBadArgumentsAreNamed() {
        assertTrue(new PwcTagCodec(32, 1024).fitsSlots(1 << 20), "10 source bits leave 20 slot bits");
        assertFalse(new PwcTagCodec(32, 1025).fitsSlots(1 << 20));
        assertTrue(new PwcTagCodec(32, 1025).fitsSlots(1 << 19));
        assertTrue(new PwcTagCodec(64, Integer.MAX_VALUE).fitsSlots(1 << 20));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new PwcTagCodec(16, 2)).getMessage()
            .contains("16 bits: must be 32 or 64"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new PwcTagCodec(32, 0)).getMessage()
            .contains("0 ranks: must be at least 1"));
    }
}
