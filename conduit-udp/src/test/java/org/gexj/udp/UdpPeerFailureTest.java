package org.gexj.udp;

import org.agrona.DirectBuffer;
import org.gexj.Config;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A peer that stops answering is reported failed, naming it and the setting that decided, instead of being waited
 * for: after {@code GEX_UDP_RETRIES} retransmissions of one datagram, or after {@code GEX_UDP_PEER_TIMEOUT} of silence
 * while it owes acknowledgements. Afterwards sends to it are refused (back-pressured; the job's health ends waits).
 */
class UdpPeerFailureTest {
    private static final ConduitListener NONE = new ConduitListener() {
        @Override
        public void onFrame(int channel, DirectBuffer buffer, int offset, int length) {
        }
    };

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void retransmissionsRunOutAfterTheRetryLimit() {
        final String reason = silentPeer(new UdpSettings(8, 1024, 1 << 20, 1 << 20, 1 << 20, 100_000, 400_000, 5,
            60_000_000_000L, 0, "auto", null, UdpSettings.Checksum.DATAGRAM));
        assertTrue(reason.startsWith("udp: rank 1 did not acknowledge a datagram sent 6 times (GEX_UDP_RETRIES=5)"),
            reason);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aSilentPeerTimesOut() {
        final String reason = silentPeer(new UdpSettings(8, 1024, 1 << 20, 1 << 20, 1 << 20, 100_000, 100_000_000,
            1_000_000, 1_000_000_000L, 0, "auto", null, UdpSettings.Checksum.DATAGRAM));
        assertEquals("udp: rank 1 sent nothing for 1 s while owing acknowledgements (GEX_UDP_PEER_TIMEOUT)", reason);
    }

    /**
     * A peer's silence counts only while it owes something: two ranks that exchanged a frame and then stayed quiet for
     * longer than the peer timeout (neither polling, nothing owed) exchange the next frame without a failure. The
     * silence used to run from the peer's last datagram, so the first send after the spell failed the peer at once.
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aSendAfterAQuietSpellLongerThanThePeerTimeoutFailsNobody() throws InterruptedException {
        final UdpSettings settings = new UdpSettings(8, 1024, 1 << 20, 1 << 20, 1 << 20, 100_000, 100_000_000,
            1_000_000, 1_000_000_000L, 0, "auto", null, UdpSettings.Checksum.DATAGRAM);
        final LossyNetwork net = new LossyNetwork(1, new LossyNetwork.Faults(0, 0, 0, 0, 0, 0, 0), 2, 7);
        final List<String> failures = new ArrayList<>();
        final UdpTransportAgent a = new UdpTransportAgent(0, 2, 7, settings, net.port(0),
            (peer, why) -> failures.add(peer + ":" + why));
        final UdpTransportAgent b = new UdpTransportAgent(1, 2, 7, settings, net.port(1),
            (peer, why) -> failures.add(peer + ":" + why));
        final int[] delivered = new int[1];
        final ConduitListener count = new ConduitListener() {
            @Override
            public void onFrame(int channel, DirectBuffer buffer, int offset, int length) {
                delivered[0]++;
            }
        };
        for (int frame = 1; frame <= 2; frame++) {
            final Claim claim = new Claim();
            assertEquals(Conduit.OK, a.claim(claim, 1, Conduit.REQUEST, 3000));
            a.commit(claim);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while ((delivered[0] < frame || !a.settled()) && failures.isEmpty() && System.nanoTime() < deadline) {
                a.poll(NONE, Conduit.ALL_CHANNELS, 16);
                b.poll(count, Conduit.ALL_CHANNELS, 16);
                Thread.onSpinWait();
            }
            assertEquals(List.of(), failures);
            assertEquals(frame, delivered[0]);
            assertTrue(a.settled(), "frame " + frame + " acknowledged");
            if (frame == 1) {
                Thread.sleep(1500); // the quiet spell itself: longer than the 1 s peer timeout, nobody polling
            }
        }
        a.close();
        b.close();
    }

    @Test
    void aClosingRankDoesNotWaitForAPeerThatLeft() {
        final LossyNetwork net = new LossyNetwork(1, new LossyNetwork.Faults(0, 0, 0, 0, 0, 0, 0), 2, 7);
        final UdpTransportAgent sender = new UdpTransportAgent(0, 2, 7, UdpSettings.from(Config.of(Map.of())),
            net.port(0), (peer, why) -> { });
        final Claim claim = new Claim();
        assertEquals(Conduit.OK, sender.claim(claim, 1, Conduit.REQUEST, 100));
        sender.commit(claim);
        sender.poll(NONE, Conduit.ALL_CHANNELS, 16);
        assertFalse(sender.settled(), "rank 1 never polls: the frame is unacknowledged");
        assertFalse(sender.settled(peer -> peer == 0), "only rank 1 could acknowledge it");
        assertTrue(sender.settled(peer -> peer == 1), "rank 1 closed its client: it needs nothing more");
        sender.close();
    }

    /** Rank 0 sends one frame to rank 1, which never polls; returns the failure reported about rank 1. */
    private static String silentPeer(UdpSettings settings) {
        final LossyNetwork net = new LossyNetwork(1, new LossyNetwork.Faults(0, 0, 0, 0, 0, 0, 0), 2, 7);
        final List<String> failures = new ArrayList<>();
        final UdpTransportAgent sender = new UdpTransportAgent(0, 2, 7, settings, net.port(0),
            (peer, why) -> failures.add(peer + ":" + why));
        final Claim claim = new Claim();
        assertEquals(Conduit.OK, sender.claim(claim, 1, Conduit.REQUEST, 3000));
        sender.commit(claim);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (failures.isEmpty() && System.nanoTime() < deadline) {
            sender.poll(NONE, Conduit.ALL_CHANNELS, 16);
            Thread.onSpinWait();
        }
        assertEquals(1, failures.size(), failures.toString());
        assertEquals(Conduit.NO_ROOM, sender.claim(claim, 1, Conduit.REQUEST, 10), "sends to a failed peer");
        assertTrue(sender.settled(), "a failed peer's datagrams are no longer waited for");
        sender.close();
        final String f = failures.get(0);
        assertTrue(f.startsWith("1:"), f);
        return f.substring(2);
    }
}
