package org.gexj.udp.io;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.Socket;
import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.internal.ffm.PollH;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;

/**
 * Datagrams through Netty's native epoll transport: its {@link Socket}, non-blocking, called directly from the
 * conduit's poll, so a message costs a system call and no thread hand-off. One unconnected socket receives from every
 * peer; one socket per peer, connected to that peer's receive socket, sends, so that a send names no address and
 * allocates nothing.
 */
public final class EpollDatagramPort implements DatagramPort {
    /** {@code SO_RCVBUFFORCE}: above {@code net.core.rmem_max}, allowed to root. */
    private static final int SO_RCVBUFFORCE = 33;
    private static final int SO_SNDBUFFORCE = 32;
    private static final int SOL_SOCKET = 1;

    private final Socket receiver;
    private final Socket[] senders;
    private final boolean[] withinHost;
    private final Set<InetAddress> hostAddresses = UdpAddresses.hostAddresses();
    private final InetSocketAddress local;
    /** {@code ppoll} on the receive socket. */
    private final PollH polls;

    /** True if Netty's epoll transport loads here. */
    public static boolean isAvailable() {
        return Epoll.isAvailable();
    }

    public static Throwable unavailabilityCause() {
        return Epoll.unavailabilityCause();
    }

    /** Binds the receive socket to {@code bind}, any port; {@link #connect} follows the address exchange. */
    public EpollDatagramPort(InetAddress bind, int socketBuffer, int peers) {
        this(bind, 0, socketBuffer, peers);
    }

    /** Binds the receive socket to {@code bind} and {@code port} (0: any); {@link #connect} follows. */
    public EpollDatagramPort(InetAddress bind, int port, int socketBuffer, int peers) {
        Epoll.ensureAvailability();
        try {
            receiver = Family.datagram(UdpAddresses.ipv6(bind));
            bufferSize(receiver, SO_RCVBUFFORCE, socketBuffer);
            receiver.bind(new InetSocketAddress(bind, port));
            local = receiver.localAddress();
        } catch (IOException e) {
            throw new UncheckedIOException("udp: cannot bind a datagram socket to " + bind.getHostAddress()
                + (port == 0 ? "" : " port " + port), e);
        }
        senders = new Socket[peers];
        withinHost = new boolean[peers];
        final int fd = receiver.intValue();
        polls = new PollH(Arena.ofAuto(), fd); // freed only once no waiting thread holds it
    }

    /** {@code ppoll} on the receive socket. */
    @Override
    public boolean awaitDatagram(long nanos) {
        return polls.awaitInput(nanos);
    }

    /**
     * Opens sockets of the bound address's family; a subclass only to reach Netty's protected factory, never made.
     * Netty's {@link Socket#newSocketDgram()} opens IPv6 ones wherever IPv6 is preferred, and Linux sends from an IPv6
     * socket connected to an IPv4-mapped peer as from an unconnected one, looking up the route for every datagram (a
     * 64 KiB flood round trip took 4-5 % longer); a connected IPv4 socket keeps its route.
     */
    private static final class Family extends Socket {
        private Family(int fd) {
            super(fd);
        }

        static Socket datagram(boolean ipv6) throws IOException {
            final int fd = newSocketDgram0(ipv6);
            if (fd < 0) {
                throw new IOException("udp: socket(" + (ipv6 ? "AF_INET6" : "AF_INET") + ", SOCK_DGRAM) failed: " + fd);
            }
            return new Socket(fd);
        }
    }

    private static void bufferSize(Socket socket, int forced, int bytes) throws IOException {
        try {
            socket.setIntOpt(SOL_SOCKET, forced, bytes);
        } catch (IOException notRoot) {
            if (forced == SO_RCVBUFFORCE) {
                socket.setReceiveBufferSize(bytes);
            } else {
                socket.setSendBufferSize(bytes);
            }
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    /** Opens the socket that sends to {@code peer}'s receive socket at {@code address}. */
    @Override
    public void connect(int peer, InetSocketAddress address, int socketBuffer) {
        try {
            final Socket s = Family.datagram(UdpAddresses.ipv6(local.getAddress()));
            bufferSize(s, SO_SNDBUFFORCE, socketBuffer);
            s.bind(new InetSocketAddress(local.getAddress(), 0));
            s.connect(address);
            senders[peer] = s;
            withinHost[peer] = UdpAddresses.withinHost(address.getAddress(), hostAddresses);
        } catch (IOException e) {
            throw new UncheckedIOException("udp: cannot open a socket to rank " + peer + " at " + address, e);
        }
    }

    @Override
    public boolean send(int peer, UnsafeBuffer data, int from, int to) {
        try {
            // by address: Netty's ByteBuffer form asks JNI for the buffer's address on every call
            return senders[peer].sendAddress(data.addressOffset(), from, to) == to - from;
        } catch (IOException refused) {
            // ECONNREFUSED from an ICMP error, ENOBUFS: a loss, which retransmission or the peer timeout settles
            return false;
        }
    }

    @Override
    public int receive(UnsafeBuffer into, int from, int to) {
        try {
            // Netty's recv: 0 when nothing waits (EAGAIN), -1 for an empty datagram
            final int n = receiver.recvAddress(into.addressOffset(), from, to);
            return n == 0 ? -1 : n < 0 ? 0 : n;
        } catch (IOException e) {
            return -1;
        }
    }

    @Override
    public boolean withinHost(int peer) {
        return withinHost[peer];
    }

    @Override
    public String describe() {
        return "Netty epoll socket at " + local.getAddress().getHostAddress() + ":" + local.getPort();
    }

    @Override
    public void close() {
        for (Socket s : senders) {
            closeQuietly(s);
        }
        closeQuietly(receiver);
    }

    private static void closeQuietly(Socket s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing: nothing to do about it
            }
        }
    }
}
