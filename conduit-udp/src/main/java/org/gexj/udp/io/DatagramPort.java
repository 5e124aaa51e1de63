package org.gexj.udp.io;

import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetSocketAddress;
import java.util.concurrent.locks.LockSupport;

/**
 * Datagrams between this rank and its peers, non-blocking: what the udp conduit's reliability sits on. A peer is a
 * rank; its address was fixed when the port was opened. Nothing here is reliable: a datagram may be lost, and
 * {@link #send} reports a refusal (a full socket buffer, an ICMP error from an earlier send) as a loss the
 * retransmission repairs. Not thread-safe: the conduit calls it under its lock.
 */
public interface DatagramPort extends AutoCloseable {
    /**
     * Sends {@code [from, to)} of {@code data}, which wraps a direct {@link java.nio.ByteBuffer}, to {@code peer}.
     *
     * @return true if the kernel took it, false if it refused it now
     */
    boolean send(int peer, UnsafeBuffer data, int from, int to);

    /**
     * Receives one waiting datagram into {@code [from, to)} of {@code into}, which wraps a direct
     * {@link java.nio.ByteBuffer}.
     *
     * @return its length (0 for an empty datagram), or -1 if none is waiting
     */
    int receive(UnsafeBuffer into, int from, int to);

    /**
     * Any thread, without the conduit's lock: blocks for up to {@code nanos} until a datagram waits to be received,
     * for a rank with nothing to do ({@link org.gexj.spi.Conduit#awaitActivity}). The default, for a port that cannot
     * wait on its socket, parks.
     *
     * @return true if a datagram (or an error) waits, false when the time ran out
     */
    default boolean awaitDatagram(long nanos) {
        LockSupport.parkNanos(nanos);
        return false;
    }

    /** Where this rank receives, published to its peers. */
    InetSocketAddress localAddress();

    /** Opens the path that sends to {@code peer}, which receives at {@code address}. */
    void connect(int peer, InetSocketAddress address, int socketBuffer);

    /**
     * Whether datagrams to {@code peer} stay in this host: its address, fixed by {@link #connect}, is a loopback
     * address or one of this host's, so the kernel copies them from socket to socket and no link can damage them.
     */
    boolean withinHost(int peer);

    /** What carries the datagrams, for the start-up line. */
    String describe();

    @Override
    void close();
}
