package org.gexj.udp;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Captures, as they cross the kernel, the UDP datagrams sent to one port of 127.0.0.1: a Linux packet socket
 * ({@code AF_PACKET}, {@code SOCK_DGRAM}, IPv4; needs root or {@code CAP_NET_RAW}) read by a thread of its own until
 * closed. Each datagram's payload is kept once per kernel copy seen (loopback shows each packet going out and coming
 * in). Through FFM: the JDK has no raw sockets.
 */
final class PacketSniffer implements AutoCloseable {
    private static final int AF_PACKET = 17;
    private static final int SOCK_DGRAM = 2;
    /** htons(ETH_P_IP) on a little-endian host. */
    private static final int ETH_P_IP_NET = 0x0008;
    private static final int SOL_SOCKET = 1;
    private static final int SO_RCVTIMEO = 20;
    private static final MethodHandle SOCKET;
    private static final MethodHandle SETSOCKOPT;
    private static final MethodHandle RECV;
    private static final MethodHandle CLOSE;

    static {
        final Linker linker = Linker.nativeLinker();
        final SymbolLookup libc = linker.defaultLookup();
        SOCKET = linker.downcallHandle(libc.find("socket").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        SETSOCKOPT = linker.downcallHandle(libc.find("setsockopt").orElseThrow(), FunctionDescriptor.of(
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        RECV = linker.downcallHandle(libc.find("recv").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        CLOSE = linker.downcallHandle(libc.find("close").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT));
    }

    private final int port;
    private final int fd;
    private final Thread reader;
    private final List<byte[]> payloads = new CopyOnWriteArrayList<>();
    private volatile boolean open = true;

    /** Starts capturing what is sent to 127.0.0.1:{@code port}. */
    PacketSniffer(int port) {
        this.port = port;
        try {
            fd = (int) SOCKET.invokeExact(AF_PACKET, SOCK_DGRAM, ETH_P_IP_NET);
            if (fd < 0) {
                throw new IllegalStateException("socket(AF_PACKET) failed: a packet socket needs root or CAP_NET_RAW");
            }
            try (Arena arena = Arena.ofConfined()) {
                final MemorySegment timeout = arena.allocate(16); // struct timeval: 100 ms, so close() is seen
                timeout.set(ValueLayout.JAVA_LONG, 0, 0);
                timeout.set(ValueLayout.JAVA_LONG, 8, 100_000);
                final int rc = (int) SETSOCKOPT.invokeExact(fd, SOL_SOCKET, SO_RCVTIMEO, timeout, 16);
                if (rc != 0) {
                    throw new IllegalStateException("setsockopt(SO_RCVTIMEO) failed");
                }
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        reader = new Thread(this::read, "sniffer-" + port);
        reader.setDaemon(true);
        reader.start();
    }

    private void read() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment buffer = arena.allocate(1 << 17);
            while (open) {
                final long n = (long) RECV.invokeExact(fd, buffer, buffer.byteSize(), 0);
                if (n < 28) {
                    continue; // timed out, or not an IPv4 packet with a UDP header
                }
                final int ihl = (buffer.get(ValueLayout.JAVA_BYTE, 0) & 0x0F) * 4;
                final int protocol = buffer.get(ValueLayout.JAVA_BYTE, 9) & 0xFF;
                final int flagsAndOffset = Short.toUnsignedInt(Short.reverseBytes(
                    buffer.get(ValueLayout.JAVA_SHORT_UNALIGNED, 6)));
                if (protocol != 17 || (flagsAndOffset & 0x3FFF) != 0 || n < ihl + 8) {
                    continue; // not UDP, or an IP fragment (loopback's MTU does not fragment these)
                }
                final int destination = Short.toUnsignedInt(Short.reverseBytes(
                    buffer.get(ValueLayout.JAVA_SHORT_UNALIGNED, ihl + 2)));
                final int daddr = buffer.get(ValueLayout.JAVA_INT_UNALIGNED, 16);
                if (destination == port && daddr == 0x0100007F) { // 127.0.0.1 as it lies in memory
                    payloads.add(buffer.asSlice(ihl + 8, n - ihl - 8).toArray(ValueLayout.JAVA_BYTE));
                }
            }
        } catch (Throwable t) {
            if (open) {
                throw new IllegalStateException(t);
            }
        }
    }

    /** The payloads captured so far, in the order seen. */
    List<byte[]> payloads() {
        return List.copyOf(payloads);
    }

    @Override
    public void close() throws InterruptedException {
        open = false;
        reader.join(2000);
        try {
            final int rc = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
