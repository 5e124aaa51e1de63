package org.gexj.udp.io;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The epoll port opens its sockets in the bound address's family: IPv4 sockets for an IPv4 address (Linux sends from
 * an IPv6 socket connected to an IPv4-mapped peer as from an unconnected one, with a route lookup per datagram), IPv6
 * ones for an IPv6 address; either way a datagram goes to the peer and back. The family is read from the kernel's
 * socket tables (/proc/net/udp and udp6), by the inodes of this process's sockets.
 */
class EpollDatagramPortTest {
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void anIpv4AddressGetsIpv4Sockets() throws IOException {
        opensSocketsOf(InetAddress.getByName("127.0.0.1"), "/proc/net/udp", "/proc/net/udp6");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void anIpv6AddressGetsIpv6Sockets() throws IOException {
        opensSocketsOf(InetAddress.getByName("::1"), "/proc/net/udp6", "/proc/net/udp");
    }

    private static void opensSocketsOf(InetAddress bind, String table, String otherTable) throws IOException {
        final Set<String> before = socketInodes();
        final EpollDatagramPort port = new EpollDatagramPort(bind, 1 << 20, 2);
        try {
            port.connect(0, port.localAddress(), 1 << 20);
            port.connect(1, port.localAddress(), 1 << 20);
            final Set<String> opened = socketInodes();
            opened.removeAll(before);
            assertEquals(3, opened.size(), "sockets opened: the receiver and one per peer");
            final Set<String> inTable = inodes(table);
            final Set<String> inOther = inodes(otherTable);
            for (String inode : opened) {
                assertTrue(inTable.contains(inode), "socket " + inode + " is not in " + table);
                assertFalse(inOther.contains(inode), "socket " + inode + " is in " + otherTable);
            }
            final UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            final UnsafeBuffer in = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            out.putLong(0, 0x1122334455667788L);
            assertTrue(port.send(1, out, 0, 8), "sent");
            int n = -1;
            for (long deadline = System.nanoTime() + 5_000_000_000L; n < 0 && System.nanoTime() < deadline; ) {
                n = port.receive(in, 0, 64);
            }
            assertEquals(8, n, "received length");
            assertEquals(0x1122334455667788L, in.getLong(0));
        } finally {
            port.close();
        }
    }

    /** Inodes of this process's open sockets. */
    private static Set<String> socketInodes() throws IOException {
        final Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    final String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // the listing's own descriptor, or one another thread closed
                }
            }
        }
        return inodes;
    }

    /** The inode column of a /proc/net socket table. */
    private static Set<String> inodes(String table) throws IOException {
        final Set<String> inodes = new HashSet<>();
        final List<String> lines = Files.readAllLines(Path.of(table));
        for (String line : lines.subList(1, lines.size())) {
            inodes.add(line.trim().split("\\s+")[9]);
        }
        return inodes;
    }
}
