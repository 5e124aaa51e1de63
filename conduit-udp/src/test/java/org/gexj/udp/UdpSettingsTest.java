package org.gexj.udp;

import org.gexj.Config;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.JobHealth;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The udp conduit's settings: defaults, ranges named in the error, and what {@code GEX_UDP_BIND} accepts. */
class UdpSettingsTest {
    @Test
    void defaultsAreGasnetsDepthAndTheLargestDatagram() {
        final UdpSettings s = UdpSettings.from(Config.of(Map.of()));
        assertEquals(128, s.depth());
        assertEquals(65507, s.datagram());
        assertEquals(1 << 30, s.maxFrame());
        // under 30 s: a dead or partitioned peer ends the job within half a minute (conduit-udp/README.md)
        assertEquals(20_000_000_000L, s.peerTimeoutNanos());
        assertEquals(7_000_000_000L, UdpSettings.from(Config.of(Map.of("GEX_UDP_PEER_TIMEOUT", "7")))
            .peerTimeoutNanos());
        assertEquals(null, s.bind());
        assertEquals(UdpSettings.Checksum.AUTO, s.checksum(), "whole datagrams across a link, headers within the host");
    }

    @Test
    void portIsAnyOrABasePlusTheRank() {
        assertEquals(0, UdpConduit.port(context(3, 4, Map.of())), "default: any free port");
        assertEquals(40_003, UdpConduit.port(context(3, 4, Map.of("GEX_UDP_PORT", "40000"))));
        assertEquals(65_535, UdpConduit.port(context(3, 4, Map.of("GEX_UDP_PORT", "65532"))));
        final IllegalArgumentException over = assertThrows(IllegalArgumentException.class,
            () -> UdpConduit.port(context(3, 4, Map.of("GEX_UDP_PORT", "65533"))));
        assertEquals("GEX_UDP_PORT=65533 gives rank 3 port 65536, outside [1, 65535]: with 4 ranks the base must be at"
            + " most 65532", over.getMessage());
        final IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
            () -> UdpConduit.port(context(0, 4, Map.of("GEX_UDP_PORT", "-1"))));
        assertTrue(negative.getMessage().contains("GEX_UDP_PORT") && negative.getMessage().contains("-1"),
            negative.getMessage());
    }

    private static ConduitContext context(int rank, int size, Map<String, String> settings) {
        return new ConduitContext(rank, size, "job", null, Config.of(settings), new JobHealth());
    }

    @Test
    void checksumIsAutoDatagramOrHeader() {
        assertEquals(UdpSettings.Checksum.AUTO,
            UdpSettings.from(Config.of(Map.of("GEX_UDP_CHECKSUM", "auto"))).checksum());
        assertEquals(UdpSettings.Checksum.DATAGRAM,
            UdpSettings.from(Config.of(Map.of("GEX_UDP_CHECKSUM", "datagram"))).checksum());
        assertEquals(UdpSettings.Checksum.HEADER,
            UdpSettings.from(Config.of(Map.of("GEX_UDP_CHECKSUM", "HEADER"))).checksum());
        final IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
            () -> UdpSettings.from(Config.of(Map.of("GEX_UDP_CHECKSUM", "off"))));
        assertEquals("GEX_UDP_CHECKSUM=off is not one of auto, datagram, header", bad.getMessage());
    }

    @Test
    void autoCoversTheHeaderOnlyWithinTheHost() {
        assertTrue(UdpSettings.Checksum.AUTO.headerOnly(true));
        assertFalse(UdpSettings.Checksum.AUTO.headerOnly(false));
        assertFalse(UdpSettings.Checksum.DATAGRAM.headerOnly(true));
        assertFalse(UdpSettings.Checksum.DATAGRAM.headerOnly(false));
        assertTrue(UdpSettings.Checksum.HEADER.headerOnly(true));
        assertTrue(UdpSettings.Checksum.HEADER.headerOnly(false));
    }

    @Test
    void outOfRangeValuesAreNamedWithTheirRange() {
        final IllegalArgumentException depth = assertThrows(IllegalArgumentException.class,
            () -> UdpSettings.from(Config.of(Map.of("GEX_UDP_NETWORK_DEPTH", "0"))));
        assertTrue(depth.getMessage().contains("GEX_UDP_NETWORK_DEPTH") && depth.getMessage().contains("4096"),
            depth.getMessage());
        final IllegalArgumentException datagram = assertThrows(IllegalArgumentException.class,
            () -> UdpSettings.from(Config.of(Map.of("GEX_UDP_DATAGRAM", "70000"))));
        assertTrue(datagram.getMessage().contains("GEX_UDP_DATAGRAM") && datagram.getMessage().contains("65507"),
            datagram.getMessage());
        final IllegalArgumentException transport = assertThrows(IllegalArgumentException.class,
            () -> UdpSettings.from(Config.of(Map.of("GEX_UDP_TRANSPORT", "dpdk"))));
        assertEquals("GEX_UDP_TRANSPORT=dpdk is not one of auto, epoll, nio", transport.getMessage());
    }

    @Test
    void bindTakesAnInterfaceNameOrAnAddress() throws Exception {
        final InetAddress bootstrap = InetAddress.getByName("127.0.0.1");
        assertEquals(bootstrap, UdpConduit.bindAddress(null, bootstrap), "default: the bootstrap's address");
        assertEquals(InetAddress.getByName("127.0.0.1"), UdpConduit.bindAddress("lo", bootstrap));
        assertEquals(InetAddress.getByName("127.0.0.2"), UdpConduit.bindAddress("127.0.0.2", bootstrap));
        final IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
            () -> UdpConduit.bindAddress("no-such-nic.invalid", bootstrap));
        assertTrue(bad.getMessage().startsWith("GEX_UDP_BIND=no-such-nic.invalid is neither an interface"),
            bad.getMessage());
    }
}
