package org.gexj.spi;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JobHealthTest {
    @Test
    void everyClosedPeerIsKnownAndTheFirstIsNamed() {
        final JobHealth health = new JobHealth();
        assertFalse(health.hasClosed(2));
        assertEquals(-1, health.closedPeer());
        health.peerClosed(2);
        final long first = health.closedAtNanos();
        health.peerClosed(5);
        assertTrue(health.hasClosed(2) && health.hasClosed(5), "both peers that closed");
        assertFalse(health.hasClosed(3) || health.hasClosed(-1), "no other");
        assertEquals(2, health.closedPeer(), "the first one names the error");
        assertEquals(first, health.closedAtNanos(), "and its time starts the grace");
        assertFalse(health.failed(), "closing is not failing");
    }
}
