package org.gexj.udp.io;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;

/** The bootstrap blob of a rank's receive address: address length (1 byte), address bytes, port (2 bytes). */
public final class UdpAddresses {
    private UdpAddresses() {
    }

    public static byte[] encode(InetSocketAddress address) {
        final byte[] ip = address.getAddress().getAddress();
        return ByteBuffer.allocate(1 + ip.length + 2).put((byte) ip.length).put(ip)
            .putShort((short) address.getPort()).array();
    }

    public static InetSocketAddress decode(byte[] blob, int rank) {
        try {
            final int n = blob[0];
            if ((n != 4 && n != 16) || blob.length != 1 + n + 2) {
                throw new IllegalArgumentException("rank " + rank + " published a malformed udp address: "
                    + Arrays.toString(blob));
            }
            final InetAddress ip = InetAddress.getByAddress(Arrays.copyOfRange(blob, 1, 1 + n));
            final int port = ((blob[1 + n] & 0xFF) << 8) | (blob[2 + n] & 0xFF);
            return new InetSocketAddress(ip, port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("rank " + rank + " published a malformed udp address", e);
        }
    }

    /**
     * The addresses of this host's interfaces (in this network namespace), which Linux reaches through the loopback
     * device; read once per port, as looking one address up lists every interface. A peer in another namespace,
     * behind a veth pair, has none of them.
     */
    public static Set<InetAddress> hostAddresses() {
        final Set<InetAddress> addresses = new HashSet<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                addresses.addAll(Collections.list(nic.getInetAddresses()));
            }
        } catch (SocketException e) {
            // none known: every peer that is not at a loopback address is taken to be across a link
        }
        return addresses;
    }

    /** Whether {@code address} is this host's: a loopback address or one of {@code hostAddresses}. */
    public static boolean withinHost(InetAddress address, Set<InetAddress> hostAddresses) {
        return address.isLoopbackAddress() || hostAddresses.contains(address);
    }

    static boolean ipv6(InetAddress address) {
        return address instanceof Inet6Address;
    }
}
