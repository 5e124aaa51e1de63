package org.gexj.udp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The reorder window's decay ({@link UdpSendStream#cleanAcknowledgement}), which is branch-free on purpose. */
class UdpSendStreamTest {
    private static final long FLOOR = 100_000;

    @Test
    void theReorderWindowHalvesAtEveryDecayCountDownToTheFloor() {
        final UdpSendStream s = new UdpSendStream(1, 0, 4, 800_000);
        final long[] expected = {400_000, 200_000, 100_000, 100_000};
        for (long window : expected) {
            final long before = s.reorderNanos;
            for (int i = 1; i < UdpSendStream.REORDER_DECAY_ACKS; i++) {
                s.cleanAcknowledgement(FLOOR);
                if (s.reorderNanos != before || s.acksSinceDuplicate != i) {
                    throw new AssertionError("after " + i + " acknowledgements: window " + s.reorderNanos
                        + ", count " + s.acksSinceDuplicate);
                }
            }
            s.cleanAcknowledgement(FLOOR);
            assertEquals(window, s.reorderNanos);
            assertEquals(0, s.acksSinceDuplicate, "the count starts again");
        }
    }

    @Test
    void aWindowUnderTwiceTheFloorStopsAtTheFloorAndOneUnderItRisesToIt() {
        final UdpSendStream s = new UdpSendStream(1, 0, 4, 150_000);
        s.acksSinceDuplicate = UdpSendStream.REORDER_DECAY_ACKS - 1;
        s.cleanAcknowledgement(FLOOR);
        assertEquals(FLOOR, s.reorderNanos);
        final UdpSendStream low = new UdpSendStream(1, 0, 4, 60_000);
        low.acksSinceDuplicate = UdpSendStream.REORDER_DECAY_ACKS - 1;
        low.cleanAcknowledgement(FLOOR);
        assertEquals(FLOOR, low.reorderNanos, "as Math.max(floor, window / 2) did");
    }
}
