package org.gexj.udp;

import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.testkit.AmConformanceKit;
import org.gexj.udp.io.NioDatagramPort;
import org.gexj.udp.wire.UdpHeaderFlyweight;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AM conformance over udp sockets with {@code GEX_UDP_CHECKSUM=header}: datagrams checksummed in their headers only.
 * And what such a rank puts on the wire: the datagrams a socket receives from it are valid with any payload byte
 * changed, those of a rank with the default are not.
 */
class UdpHeaderChecksumAmConformanceTest extends AmConformanceKit {
    private static final long COOKIE = 0x0DDC_0FFE_E0DD_F00DL;
    private static final int PAYLOAD = 1000;

    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp", "GEX_UDP_CHECKSUM", "header");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void theWireCarriesWhatTheSettingSays() throws Exception {
        assertEquals(UdpHeaderFlyweight.VALID, sendOneAndDamageItsPayload(false), "header: the payload is not covered");
        assertEquals(UdpHeaderFlyweight.BAD_CHECKSUM, sendOneAndDamageItsPayload(true), "datagram: it is");
    }

    /** Rank 0 sends one frame to a plain socket standing in for rank 1: the verdict on it, a payload byte flipped. */
    private static int sendOneAndDamageItsPayload(boolean checksumPayload) throws Exception {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        final UdpSettings settings = new UdpSettings(8, 65507, 1 << 20, 1 << 20, 1 << 20, 10_000_000_000L,
            10_000_000_000L, 10, 60_000_000_000L, 0, "nio", null, checksumPayload);
        try (DatagramChannel peer = DatagramChannel.open();
             NioDatagramPort port = new NioDatagramPort(loopback, 1 << 20, 2)) {
            peer.bind(new InetSocketAddress(loopback, 0));
            port.connect(1, (InetSocketAddress) peer.getLocalAddress(), 1 << 20);
            final UdpTransportAgent agent = new UdpTransportAgent(0, 2, COOKIE, settings, port, (p, reason) -> { });
            try {
                final Claim claim = new Claim();
                assertEquals(Conduit.OK, agent.claim(claim, 1, 0, PAYLOAD));
                for (int i = 0; i < PAYLOAD; i++) {
                    claim.buffer().putByte(claim.offset() + i, (byte) i);
                }
                agent.commit(claim);
                final ByteBuffer received = ByteBuffer.allocateDirect(65536);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                peer.configureBlocking(false);
                while (peer.receive(received) == null) {
                    assertTrue(System.nanoTime() < deadline, "no datagram from rank 0");
                    Thread.sleep(1);
                }
                final int length = received.position();
                assertEquals(UdpHeaderFlyweight.LENGTH + PAYLOAD, length);
                final UnsafeBuffer datagram = new UnsafeBuffer(received);
                final int at = UdpHeaderFlyweight.LENGTH + PAYLOAD / 2;
                datagram.putByte(at, (byte) ~datagram.getByte(at));
                return new UdpHeaderFlyweight().wrap(datagram, 0).check(length, COOKIE, 1, 2);
            } finally {
                agent.close();
            }
        }
    }
}
