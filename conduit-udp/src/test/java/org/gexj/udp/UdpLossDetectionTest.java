package org.gexj.udp;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.udp.io.DatagramPort;
import org.gexj.udp.wire.UdpHeaderFlyweight;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Loss detection must not take slowness for loss, nor wait for timeouts to repair a loss the peer already shows. On a
 * network that loses nothing, a peer that starts polling after the first timeout costs one resend per stream, not a
 * resend of the whole window on every acknowledgement (once the only fragment acknowledged had been resent, no send
 * time was left to measure against, and every fragment in flight looked lost: 91,000 needless resends in one
 * {@code testam 2000 65536} across two network namespaces). A datagram lost in a burst is resent once the peer holds
 * later ones and the reorder window has passed, not one retransmission timeout per hole (10 % loss made a flood of
 * small AMs ten times slower).
 */
class UdpLossDetectionTest {
    private static final long COOKIE = 0x0BAD_CAFE_F00DL;
    private static final int FRAMES = 400;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aHoleInABurstIsRepairedByTheReorderTimerNotByTheTimeout() {
        final LossyNetwork net = new LossyNetwork(1, new LossyNetwork.Faults(0, 0, 0, 0, 0, 0, 0), 2, COOKIE);
        // a 10 s timeout, so a timeout cannot be what repairs it; the reorder window is 1.25 s
        final UdpSettings settings = new UdpSettings(16, 1024, 1 << 20, 1 << 20, 1 << 20, 10_000_000_000L,
            10_000_000_000L, 1000, 30_000_000_000L, 0, "auto", null, UdpSettings.Checksum.DATAGRAM);
        final List<String> failures = new ArrayList<>();
        final UdpTransportAgent sender = new UdpTransportAgent(0, 2, COOKIE, settings,
            new DropNthData(net.port(0), 3), (peer, reason) -> failures.add(reason));
        final UdpTransportAgent receiver = new UdpTransportAgent(1, 2, COOKIE, settings, net.port(1),
            (peer, reason) -> failures.add(reason));
        final int[] delivered = new int[1];
        final ConduitListener count = (int channel, DirectBuffer buffer, int offset, int length) -> delivered[0]++;
        final Claim claim = new Claim();
        // one burst of 16 frames that fills the window: nothing sent later could reveal the hole
        for (int i = 0; i < 16; i++) {
            assertEquals(Conduit.OK, sender.claim(claim, 1, Conduit.REQUEST, 100));
            sender.commit(claim);
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (delivered[0] < 16 || !sender.settled()) {
            assertTrue(System.nanoTime() < deadline, "not done: " + sender.state() + " / " + receiver.state());
            sender.poll(count, Conduit.ALL_CHANNELS, 16);
            receiver.poll(count, Conduit.ALL_CHANNELS, 16);
            LockSupport.parkNanos(200_000);
        }
        assertTrue(failures.isEmpty(), failures.toString());
        final Map<String, Long> counters = sender.snapshot();
        assertEquals(1L, counters.get("udp.retransmitted.fast"), counters.toString());
        assertEquals(1L, counters.get("udp.retransmitted"), counters.toString());
        assertEquals(0L, receiver.snapshot().get("udp.duplicates"));
        sender.close();
        receiver.close();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aPeerThatStartsLateIsNotSentTheWholeWindowAgain() {
        final LossyNetwork net = new LossyNetwork(1, new LossyNetwork.Faults(0, 0, 0, 0, 0, 0, 0), 2, COOKIE);
        // one-fragment frames, a window of 16, a 1 ms timeout: the receiver's late start outlasts it
        final UdpSettings settings = new UdpSettings(16, 1024, 1 << 20, 1 << 20, 1 << 20, 1_000_000, 5_000_000, 1000,
            30_000_000_000L, 0, "auto", null, UdpSettings.Checksum.DATAGRAM);
        final List<String> failures = new ArrayList<>();
        final UdpTransportAgent sender = new UdpTransportAgent(0, 2, COOKIE, settings, net.port(0),
            (peer, reason) -> failures.add(reason));
        final UdpTransportAgent receiver = new UdpTransportAgent(1, 2, COOKIE, settings, net.port(1),
            (peer, reason) -> failures.add(reason));
        final int[] delivered = new int[1];
        final ConduitListener count = (int channel, DirectBuffer buffer, int offset, int length) -> delivered[0]++;
        final Claim claim = new Claim();
        int sent = 0;
        final long lateUntil = System.nanoTime() + 5_000_000;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (delivered[0] < FRAMES || !sender.settled()) {
            assertTrue(System.nanoTime() < deadline, "not done: " + sender.state() + " / " + receiver.state());
            while (sent < FRAMES && sender.claim(claim, 1, Conduit.REQUEST, 100) == Conduit.OK) {
                sender.commit(claim);
                sent++;
            }
            sender.poll(count, Conduit.ALL_CHANNELS, 16);
            if (System.nanoTime() < lateUntil) {
                LockSupport.parkNanos(100_000);
            } else {
                // one frame per poll: every acknowledgement acknowledges little, the window stays full
                receiver.poll(count, Conduit.ALL_CHANNELS, 1);
            }
        }
        assertTrue(failures.isEmpty(), failures.toString());
        final Map<String, Long> counters = sender.snapshot();
        assertEquals(0L, counters.get("udp.retransmitted.fast"), counters.toString());
        // the timeout resent the oldest fragment a few times while the receiver slept, and perhaps now and then while
        // a loaded machine kept it from polling, one fragment per timeout; the fault resent thousands
        assertTrue(counters.get("udp.retransmitted") <= FRAMES / 4, counters.toString());
        final long duplicates = receiver.snapshot().get("udp.duplicates");
        assertEquals(duplicates, counters.get("udp.retransmitted"));
        // the receiver told the sender of its duplicates (several between two reports make one)
        final long reported = counters.get("udp.retransmitted.needless");
        assertTrue(duplicates == 0 || (reported >= 1 && reported <= duplicates), counters.toString());
        sender.close();
        receiver.close();
    }

    /** Loses the {@code n}th DATA datagram sent through it, and nothing else. */
    private static final class DropNthData extends ForwardingDatagramPort {
        private int countdown;

        DropNthData(DatagramPort port, int n) {
            super(port);
            this.countdown = n;
        }

        @Override
        public boolean send(int peer, UnsafeBuffer data, int from, int to) {
            if (data.getByte(from + 1) == UdpHeaderFlyweight.TYPE_DATA && --countdown == 0) {
                return true;
            }
            return super.send(peer, data, from, to);
        }
    }
}
