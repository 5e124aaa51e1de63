package org.gexj.udp.io;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which peer addresses are this host's, where {@code GEX_UDP_CHECKSUM=auto} checksums headers only: loopback addresses
 * and this host's interfaces' addresses are; documentation addresses (RFC 5737, RFC 3849), which no host has, are
 * not. Both ports record it per peer when they connect.
 */
class UdpAddressesTest {
    private static final Set<InetAddress> HOST = UdpAddresses.hostAddresses();

    @Test
    void loopbackAddressesAreWithinTheHost() throws UnknownHostException {
        assertTrue(UdpAddresses.withinHost(InetAddress.getByName("127.0.0.1"), HOST));
        assertTrue(UdpAddresses.withinHost(InetAddress.getByName("127.0.0.2"), HOST));
        assertTrue(UdpAddresses.withinHost(InetAddress.getByName("::1"), HOST));
    }

    @Test
    void thisHostsInterfaceAddressesAreWithinTheHost() throws SocketException {
        assertTrue(HOST.contains(InetAddress.getLoopbackAddress()), "lo is among the interfaces: " + HOST);
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                assertTrue(UdpAddresses.withinHost(a, HOST), a + " of " + nic.getName());
            }
        }
    }

    @Test
    void addressesOfNoHostAreAcrossALink() throws UnknownHostException {
        assertFalse(UdpAddresses.withinHost(InetAddress.getByName("192.0.2.1"), HOST));
        assertFalse(UdpAddresses.withinHost(InetAddress.getByName("198.51.100.7"), HOST));
        assertFalse(UdpAddresses.withinHost(InetAddress.getByName("2001:db8::1"), HOST));
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void portsRecordItPerPeer() throws SocketException {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        try (NioDatagramPort nio = new NioDatagramPort(loopback, 1 << 20, 2)) {
            nio.connect(0, nio.localAddress(), 1 << 20);
            assertTrue(nio.withinHost(0));
            assertFalse(nio.withinHost(1), "a peer not connected yet is not known to be on this host");
        }
        if (EpollDatagramPort.isAvailable()) {
            try (EpollDatagramPort epoll = new EpollDatagramPort(loopback, 1 << 20, 2)) {
                epoll.connect(0, epoll.localAddress(), 1 << 20);
                assertTrue(epoll.withinHost(0));
            }
        }
        // a port bound to one of this host's other addresses: its peers there are within the host too
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress() && nic.isUp()) {
                    try (NioDatagramPort other = new NioDatagramPort(a, 1 << 20, 1)) {
                        other.connect(0, new InetSocketAddress(a, other.localAddress().getPort()), 1 << 20);
                        assertTrue(other.withinHost(0), a + " of " + nic.getName());
                    }
                    return;
                }
            }
        }
    }
}
