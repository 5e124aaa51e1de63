package org.gexj.udp;

import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.udp.wire.UdpHeaderFlyweight;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.gexj.udp.wire.UdpHeaderFlyweight.LENGTH;
import static org.gexj.udp.wire.UdpHeaderFlyweight.VALID;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * What each checksum mode catches, bit by bit: the default covers every byte of a datagram; {@code header} covers the
 * header's 80 bytes (so also the flag that says which mode a datagram was sealed in) and leaves the fragment to UDP.
 * The checksum is the last defence here: some header bits fail an earlier check (version, lengths) first.
 */
class UdpHeaderFlyweightTest {
    private static final long COOKIE = 0x0123_4567_89AB_CDEFL;
    private static final int FRAGMENT = 300;

    @Test
    void aDatagramChecksumDropsADatagramWithAnyBitFlipped() {
        for (int bit = 0; bit < 8 * (LENGTH + FRAGMENT); bit++) {
            assertNotEquals(VALID, checkWithBitFlipped(false, bit), "bit " + bit);
        }
        assertEquals(VALID, checkWithBitFlipped(false, -1));
    }

    @Test
    void aHeaderChecksumDropsAFlippedHeaderBitAndLeavesTheFragmentToUdp() {
        for (int bit = 0; bit < 8 * LENGTH; bit++) {
            assertNotEquals(VALID, checkWithBitFlipped(true, bit), "header bit " + bit);
        }
        for (int bit = 8 * LENGTH; bit < 8 * (LENGTH + FRAGMENT); bit++) {
            assertEquals(VALID, checkWithBitFlipped(true, bit), "fragment bit " + bit);
        }
        assertEquals(VALID, checkWithBitFlipped(true, -1));
    }

    /** Seals a DATA datagram, flips {@code bit} (none when negative): the receiver's verdict. */
    private static int checkWithBitFlipped(boolean headerOnly, int bit) {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(LENGTH + FRAGMENT));
        for (int i = 0; i < FRAGMENT; i++) {
            buffer.putByte(LENGTH + i, (byte) (i * 31 + 7));
        }
        final UdpHeaderFlyweight header = new UdpHeaderFlyweight().wrap(buffer, 0)
            .data(COOKIE, 0, 1, 0, 5, FRAGMENT, 0, FRAGMENT)
            .acknowledgement(0, 3, 0b101).acknowledgement(1, 9, 0);
        header.seal(LENGTH + FRAGMENT, headerOnly);
        if (bit >= 0) {
            buffer.putByte(bit / 8, (byte) (buffer.getByte(bit / 8) ^ 1 << bit % 8));
        }
        return new UdpHeaderFlyweight().wrap(buffer, 0).check(LENGTH + FRAGMENT, COOKIE, 1, 2);
    }
}
