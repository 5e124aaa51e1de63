package org.gexj.ibv;

import org.gexj.Config;

/**
 * The {@code GEX_IBV_*} settings of the data path, read and range-checked once when the conduit opens (the device and
 * port are {@link IbvSettings}). A bad value is an {@link IllegalArgumentException} naming the variable, the value and
 * the allowed range.
 *
 * @param connect       {@code GEX_IBV_CONNECT}: how queue pairs are connected: {@code ondemand} (the default: a
 *                      peer's QP when first used, numbers exchanged over a UD QP) or {@code static} (every peer's
 *                      QP at open, one allgather)
 * @param frameLength   {@code GEX_IBV_FRAME}: largest AM frame in bytes (header, arguments and Medium payload)
 * @param credits       {@code GEX_IBV_CREDITS}: messages each peer may send per channel before this rank returns
 *                      credits; each takes a receive buffer of the shared receive queue
 * @param sendBuffers   {@code GEX_IBV_SEND_BUFFERS}: registered send buffers of one frame each
 * @param rmaOperations {@code GEX_IBV_RMA_OPS}: RMA operations in flight at once
 * @param maxInline     {@code GEX_IBV_INLINE}: bytes a QP is asked to send inline (credit messages need 16)
 * @param timeoutNanos  {@code GEX_IBV_TIMEOUT} (seconds): how long a send may find the send queue full, or a peer that
 *                      owes this rank credits or RMA completions stay silent, before the peer is declared unreachable
 * @param peerKeys      {@code GEX_IBV_PEER_KEYS}: {@code off} (the default) or {@code on}: whether memory a program
 *                      registers ({@code Client.register}) is registered with the device for peers' RDMA, its key in
 *                      the descriptor, so that peers put, get, put and get with completion and pull rendezvous Longs
 *                      by RDMA. On, the program promises never to use a descriptor past its registration, its range
 *                      or its access, as GASNet-EX requires of bound memory: a refused access is a remote access
 *                      error, which moves the queue pair to the error state and ends the job naming the peer. Off,
 *                      peers reach registrations over messages, and the owner refuses alone.
 */
record IbvConduitSettings(String connect, int frameLength, int credits, int sendBuffers, int rmaOperations,
                          int maxInline, long timeoutNanos, boolean peerKeys) {
    /** Whether every peer's QP is connected at open. */
    boolean connectsStatically() {
        return connect.equals(STATIC);
    }

    static final String CONNECT = "GEX_IBV_CONNECT";
    static final String FRAME = "GEX_IBV_FRAME";
    static final String CREDITS = "GEX_IBV_CREDITS";
    static final String SEND_BUFFERS = "GEX_IBV_SEND_BUFFERS";
    static final String RMA_OPS = "GEX_IBV_RMA_OPS";
    static final String INLINE = "GEX_IBV_INLINE";
    static final String TIMEOUT = "GEX_IBV_TIMEOUT";
    static final String PEER_KEYS = "GEX_IBV_PEER_KEYS";
    static final String STATIC = "static";
    static final String ONDEMAND = "ondemand";

    /** The settings of {@code config}. */
    static IbvConduitSettings from(Config config) {
        final String connect = config.get(CONNECT, ONDEMAND).toLowerCase(java.util.Locale.ROOT);
        if (!connect.equals(STATIC) && !connect.equals(ONDEMAND)) {
            throw new IllegalArgumentException(CONNECT + "=" + connect + " is not one of: " + ONDEMAND + ", "
                + STATIC);
        }
        final int frame = config.getInt(FRAME, 16 << 10, 1024, 1 << 20);
        final int credits = config.getInt(CREDITS, 32, 2, 4096);
        final int send = config.getInt(SEND_BUFFERS, 256, 4, 1 << 16);
        final int rma = config.getInt(RMA_OPS, 256, 4, 1 << 16);
        final int inline = config.getInt(INLINE, 64, 16, 1024);
        final long timeout = config.getLong(TIMEOUT, 30, 1, 3600);
        final String keys = config.get(PEER_KEYS, "off").toLowerCase(java.util.Locale.ROOT);
        if (!keys.equals("on") && !keys.equals("off")) {
            throw new IllegalArgumentException(PEER_KEYS + "=" + keys + " is not one of: off, on");
        }
        return new IbvConduitSettings(connect, frame, credits, send, rma, inline, timeout * 1_000_000_000L,
            keys.equals("on"));
    }
}
