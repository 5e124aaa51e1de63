package org.gexj.udp;

import org.gexj.Config;

import java.util.Locale;

/**
 * The udp conduit's settings, range-checked when it opens; a bad value is an {@link IllegalArgumentException} naming
 * it and its range.
 *
 * @param depth        {@code GEX_UDP_NETWORK_DEPTH}: fragments in flight per peer and channel, and frames a sender
 *                     may have unacknowledged per peer and channel before it is back-pressured, [1, 4096], 128
 *                     (GASNet's default)
 * @param datagram     {@code GEX_UDP_DATAGRAM}: largest datagram in bytes, header included, [1024, 65507], 65507
 * @param maxFrame     {@code GEX_UDP_MAX_FRAME}: largest AM frame, fragmented into datagrams, and so the largest
 *                     Long, [65536, 2^30], 2^30
 * @param sendBytes    {@code GEX_UDP_SEND_BYTES}: frame bytes unacknowledged per peer and channel before a sender is
 *                     back-pressured (one frame may always go), [65536, 2^30], 32 MiB
 * @param socketBuffer {@code GEX_UDP_SOCKET_BUFFER}: kernel socket buffer bytes, [65536, 2^30], 16 MiB (beyond
 *                     {@code net.core.rmem_max} only as root)
 * @param rtoNanos     {@code GEX_UDP_RTO_US}: first retransmission timeout, [20, 10^7] us, 500; doubles per retry.
 *                     A lost datagram that nothing sent after it reveals (the last of a request-reply exchange)
 *                     waits this long: with 2000, 10 % loss cost a flood across veth 30 % of its throughput, with
 *                     500 15 %, while a paused peer costs one needless datagram per timeout
 * @param rtoMaxNanos  {@code GEX_UDP_RTO_MAX_US}: largest retransmission timeout, [20, 10^8] us, 10^6
 * @param retries      {@code GEX_UDP_RETRIES}: retransmissions of one fragment before its peer is failed,
 *                     [1, 10^6], 200
 * @param peerTimeoutNanos {@code GEX_UDP_PEER_TIMEOUT}: seconds a peer with unacknowledged traffic may stay silent
 *                     before the job ends naming it, [1, 86400], 20 (60 until 2026-11-26)
 * @param ackDelayNanos {@code GEX_UDP_ACK_DELAY_US}: longest wait for traffic to carry an acknowledgement before one
 *                     goes alone, [0, 10^6] us, 50
 * @param transport    {@code GEX_UDP_TRANSPORT}: {@code auto} (Netty epoll where it loads, NIO otherwise),
 *                     {@code epoll} or {@code nio}
 * @param bind         {@code GEX_UDP_BIND}: the address or interface name to bind, or null for the bootstrap's
 * @param checksum     {@code GEX_UDP_CHECKSUM}: what each datagram's CRC32C covers ({@link Checksum}), {@code auto}
 */
record UdpSettings(int depth, int datagram, int maxFrame, long sendBytes, int socketBuffer, long rtoNanos,
                   long rtoMaxNanos, int retries, long peerTimeoutNanos, long ackDelayNanos, String transport,
                   String bind, Checksum checksum) {
    static final String DEPTH = "GEX_UDP_NETWORK_DEPTH";
    static final String DATAGRAM = "GEX_UDP_DATAGRAM";
    static final String MAX_FRAME = "GEX_UDP_MAX_FRAME";
    static final String SEND_BYTES = "GEX_UDP_SEND_BYTES";
    static final String SOCKET_BUFFER = "GEX_UDP_SOCKET_BUFFER";
    static final String RTO = "GEX_UDP_RTO_US";
    static final String RTO_MAX = "GEX_UDP_RTO_MAX_US";
    static final String RETRIES = "GEX_UDP_RETRIES";
    static final String PEER_TIMEOUT = "GEX_UDP_PEER_TIMEOUT";
    /**
     * Under 30 s, so a partitioned or dead peer ends the job within half a minute without a launcher to tell (mpirun
     * across hosts); well above a JVM's longest collector pause and a busy 2-core host's scheduling stalls, which
     * would otherwise fail a live peer. A program that computes for longer without polling raises it.
     */
    static final long DEFAULT_PEER_TIMEOUT_SECONDS = 20;
    static final String ACK_DELAY = "GEX_UDP_ACK_DELAY_US";
    static final String TRANSPORT = "GEX_UDP_TRANSPORT";
    static final String BIND = "GEX_UDP_BIND";
    static final String CHECKSUM = "GEX_UDP_CHECKSUM";

    static UdpSettings from(Config config) {
        final String transport = config.get(TRANSPORT, "auto").toLowerCase(Locale.ROOT);
        if (!transport.equals("auto") && !transport.equals("epoll") && !transport.equals("nio")) {
            throw new IllegalArgumentException(TRANSPORT + "=" + transport + " is not one of auto, epoll, nio");
        }
        final String bind = config.get(BIND, "").trim();
        final String checksum = config.get(CHECKSUM, "auto").toLowerCase(Locale.ROOT);
        if (!checksum.equals("auto") && !checksum.equals("datagram") && !checksum.equals("header")) {
            throw new IllegalArgumentException(CHECKSUM + "=" + checksum + " is not one of auto, datagram, header");
        }
        return new UdpSettings(
            config.getInt(DEPTH, 128, 1, 4096),
            config.getInt(DATAGRAM, 65507, 1024, 65507),
            config.getInt(MAX_FRAME, 1 << 30, 65536, 1 << 30),
            config.getLong(SEND_BYTES, 32L << 20, 65536, 1L << 30),
            config.getInt(SOCKET_BUFFER, 16 << 20, 65536, 1 << 30),
            config.getLong(RTO, 500, 20, 10_000_000) * 1000,
            config.getLong(RTO_MAX, 1_000_000, 20, 100_000_000) * 1000,
            config.getInt(RETRIES, 200, 1, 1_000_000),
            config.getLong(PEER_TIMEOUT, DEFAULT_PEER_TIMEOUT_SECONDS, 1, 86_400) * 1_000_000_000L,
            config.getLong(ACK_DELAY, 50, 0, 1_000_000) * 1000,
            transport,
            bind.isEmpty() ? null : bind,
            Checksum.valueOf(checksum.toUpperCase(Locale.ROOT)));
    }

    /**
     * What a datagram's CRC32C covers ({@code GEX_UDP_CHECKSUM}). Each datagram says which it carries and the receiver
     * checks that, so ranks of one job may differ.
     */
    enum Checksum {
        /**
         * The default: {@link #DATAGRAM} to peers across a link, {@link #HEADER} to peers on this host (a loopback
         * address or one of this host's own), whose datagrams the kernel copies from socket to socket without a
         * wire, a device or a checksum of its own: Linux marks loopback traffic as needing none. The payload's
         * CRC32C costs 1.0 us per 64 KiB per pass, two passes per datagram.
         */
        AUTO,
        /** A CRC32C of the header and the fragment: a datagram damaged anywhere is dropped. */
        DATAGRAM,
        /**
         * A CRC32C of the 80-byte header only: the fragment's bytes are left to UDP's 16-bit checksum, as GASNet's
         * udp-conduit leaves all of its datagrams.
         */
        HEADER;

        /** Whether a datagram to a peer on this host ({@code withinHost}) or across a link covers its header only. */
        boolean headerOnly(boolean withinHost) {
            return this == HEADER || (this == AUTO && withinHost);
        }
    }
}
