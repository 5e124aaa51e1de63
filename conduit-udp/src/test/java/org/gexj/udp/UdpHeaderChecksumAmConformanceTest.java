package org.gexj.udp;

import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.testkit.AmConformanceKit;
import org.gexj.udp.io.DatagramPort;
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

import static org.gexj.udp.UdpSettings.Checksum.AUTO;
import static org.gexj.udp.UdpSettings.Checksum.DATAGRAM;
import static org.gexj.udp.UdpSettings.Checksum.HEADER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AM conformance over udp sockets with {@code GEX_UDP_CHECKSUM=header}: datagrams checksummed in their headers only.
 * And what each setting puts on the wire: whether a datagram a socket receives is still valid with a payload byte
 * changed (header; auto to a peer on this host) or not (datagram; auto to a peer across a link).
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
        assertEquals(UdpHeaderFlyweight.VALID, sendOneAndDamageItsPayload(HEADER, false),
            "header: the payload is not covered");
        assertEquals(UdpHeaderFlyweight.VALID, sendOneAndDamageItsPayload(HEADER, true),
            "header: not across a link either");
        assertEquals(UdpHeaderFlyweight.BAD_CHECKSUM, sendOneAndDamageItsPayload(DATAGRAM, false),
            "datagram: it is, even within the host");
        assertEquals(UdpHeaderFlyweight.VALID, sendOneAndDamageItsPayload(AUTO, false),
            "auto: a peer on this host gets the header covered only");
        assertEquals(UdpHeaderFlyweight.BAD_CHECKSUM, sendOneAndDamageItsPayload(AUTO, true),
            "auto: a peer across a link gets the whole datagram covered");
    }

    /**
     * Rank 0 sends one frame to a plain socket standing in for rank 1: the verdict on it, a payload byte flipped. The
     * socket is on loopback; {@code acrossALink} makes the port say it is not, as for a peer on another host.
     */
    private static int sendOneAndDamageItsPayload(UdpSettings.Checksum checksum, boolean acrossALink)
        throws Exception {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        final UdpSettings settings = new UdpSettings(8, 65507, 1 << 20, 1 << 20, 1 << 20, 10_000_000_000L,
            10_000_000_000L, 10, 60_000_000_000L, 0, "nio", null, checksum);
        try (DatagramChannel peer = DatagramChannel.open();
             NioDatagramPort port = new NioDatagramPort(loopback, 1 << 20, 2)) {
            peer.bind(new InetSocketAddress(loopback, 0));
            port.connect(1, (InetSocketAddress) peer.getLocalAddress(), 1 << 20);
            assertTrue(port.withinHost(1), "loopback is this host");
            final UdpTransportAgent agent = new UdpTransportAgent(0, 2, COOKIE, settings,
                acrossALink ? new AcrossALink(port) : port, (p, reason) -> { });
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

    /** A port whose peers are all on other hosts, whatever their addresses. */
    private static final class AcrossALink extends ForwardingDatagramPort {
        AcrossALink(DatagramPort port) {
            super(port);
        }

        @Override
        public boolean withinHost(int peer) {
            return false;
        }
    }
}
