package org.gexj.udp.io;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Set;

/**
 * Datagrams through NIO {@link DatagramChannel}s, what Netty's NIO transport wraps: the fallback where Netty's
 * native epoll does not load. Same shape as {@link EpollDatagramPort}: one unconnected channel receives, one
 * connected channel per peer sends.
 */
public final class NioDatagramPort implements DatagramPort {
    private final DatagramChannel receiver;
    private final DatagramChannel[] senders;
    private final boolean[] withinHost;
    private final Set<InetAddress> hostAddresses = UdpAddresses.hostAddresses();
    private final InetSocketAddress local;

    public NioDatagramPort(InetAddress bind, int socketBuffer, int peers) {
        this(bind, 0, socketBuffer, peers);
    }

    /** Binds the receive channel to {@code bind} and {@code port} (0: any). */
    public NioDatagramPort(InetAddress bind, int port, int socketBuffer, int peers) {
        try {
            receiver = DatagramChannel.open(UdpAddresses.ipv6(bind) ? java.net.StandardProtocolFamily.INET6
                : java.net.StandardProtocolFamily.INET);
            receiver.setOption(StandardSocketOptions.SO_RCVBUF, socketBuffer);
            receiver.bind(new InetSocketAddress(bind, port));
            receiver.configureBlocking(false);
            local = (InetSocketAddress) receiver.getLocalAddress();
        } catch (IOException e) {
            throw new UncheckedIOException("udp: cannot bind a datagram channel to " + bind.getHostAddress()
                + (port == 0 ? "" : " port " + port), e);
        }
        senders = new DatagramChannel[peers];
        withinHost = new boolean[peers];
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public void connect(int peer, InetSocketAddress address, int socketBuffer) {
        try {
            final DatagramChannel c = DatagramChannel.open(UdpAddresses.ipv6(local.getAddress())
                ? java.net.StandardProtocolFamily.INET6 : java.net.StandardProtocolFamily.INET);
            c.setOption(StandardSocketOptions.SO_SNDBUF, socketBuffer);
            c.bind(new InetSocketAddress(local.getAddress(), 0));
            c.connect(address);
            c.configureBlocking(false);
            senders[peer] = c;
            withinHost[peer] = UdpAddresses.withinHost(address.getAddress(), hostAddresses);
        } catch (IOException e) {
            throw new UncheckedIOException("udp: cannot open a channel to rank " + peer + " at " + address, e);
        }
    }

    @Override
    public boolean send(int peer, UnsafeBuffer buffer, int from, int to) {
        final ByteBuffer data = buffer.byteBuffer();
        try {
            data.limit(to).position(from);
            return senders[peer].write(data) == to - from;
        } catch (IOException refused) {
            return false;
        } finally {
            data.clear();
        }
    }

    @Override
    public int receive(UnsafeBuffer buffer, int from, int to) {
        final ByteBuffer into = buffer.byteBuffer();
        try {
            into.limit(to).position(from);
            return receiver.receive(into) == null ? -1 : into.position() - from;
        } catch (IOException e) {
            return -1;
        } finally {
            into.clear();
        }
    }

    @Override
    public boolean withinHost(int peer) {
        return withinHost[peer];
    }

    @Override
    public String describe() {
        return "NIO DatagramChannel at " + local.getAddress().getHostAddress() + ":" + local.getPort();
    }

    @Override
    public void close() {
        for (DatagramChannel c : senders) {
            closeQuietly(c);
        }
        closeQuietly(receiver);
    }

    private static void closeQuietly(DatagramChannel c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException ignored) {
                // closing: nothing to do about it
            }
        }
    }
}
