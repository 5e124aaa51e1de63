package org.gexj.ofi;

import org.gexj.Config;

/**
 * The {@code GEX_OFI_*} settings of one rank, read and range-checked once when the conduit opens. A bad value is an
 * {@link IllegalArgumentException} naming the variable, the value and the allowed range.
 *
 * @param provider     {@code GEX_OFI_PROVIDER}, else {@code FI_PROVIDER}: the provider to use (e.g.
 *                     {@code tcp;ofi_rxm}), or null to take the first available in {@link OfiFabric#PREFERENCE}
 * @param node         {@code GEX_OFI_NODE}: the address the endpoint binds to, default the local address of the rank's
 *                     bootstrap connection ({@code 127.0.0.1} for a job on one host, the address that routes to the
 *                     launcher for a job across hosts, as the udp conduit binds); when no provider binds there (shm,
 *                     verbs), any address
 * @param frameLength  {@code GEX_OFI_FRAME}: largest AM frame in bytes (header, arguments and Medium payload)
 * @param creditBytes  {@code GEX_OFI_CREDIT_BYTES}: receive-buffer bytes each peer may fill per channel before this
 *                     rank returns credits; with the number of ranks it sizes the receive buffers
 * @param sendBuffers  {@code GEX_OFI_SEND_BUFFERS}: registered send buffers of one frame each
 * @param rmaOperations {@code GEX_OFI_RMA_OPS}: RMA operations in flight at once
 * @param timeoutNanos {@code GEX_OFI_TIMEOUT} (seconds): how long a send may find the endpoint busy, or a peer that
 *                     owes this rank credits or RMA completions stay silent, before the peer is declared unreachable
 * @param cqDataBytes  {@code GEX_OFI_CQ_DATA}: at most this many bytes of the provider's remote CQ data are used, 0,
 *                     4 or 8, or -1 when not set ({@link #cqDataBytes(String)}: 8, all a provider offers, except on
 *                     the {@link #NO_WRITE_DATA_PROVIDERS}). 0 offers the AM layer no immediate, so it never chooses
 *                     target-side reassembly (for measurements); 4 carries the tag alone, as on verbs, so that path
 *                     runs on any provider
 * @param cqWaitFd     {@code GEX_OFI_CQ_WAIT}: {@code fd} (default) opens the completion queue with a file descriptor
 *                     to wait on where the provider offers one, so that a rank waiting with nothing to do blocks on it
 *                     instead of parking and serves a peer's gets as they come; {@code none} opens it without (for
 *                     measurements)
 * @param peerKeys     {@code GEX_OFI_PEER_KEYS}: {@code auto} (default), {@code on} or {@code off}: whether memory a
 *                     rank registers ({@code Client.register}) is registered with the provider for peers' RDMA, its
 *                     key in the descriptor ({@link #peerKeys(String)})
 */
record OfiSettings(String provider, String node, int frameLength, long creditBytes, int sendBuffers,
                   int rmaOperations, long timeoutNanos, int cqDataBytes, boolean cqWaitFd, String peerKeys) {
    static final String PROVIDER = "GEX_OFI_PROVIDER";
    static final String FI_PROVIDER = "FI_PROVIDER";
    static final String NODE = "GEX_OFI_NODE";
    static final String FRAME = "GEX_OFI_FRAME";
    static final String CREDIT_BYTES = "GEX_OFI_CREDIT_BYTES";
    static final String SEND_BUFFERS = "GEX_OFI_SEND_BUFFERS";
    static final String RMA_OPS = "GEX_OFI_RMA_OPS";
    static final String TIMEOUT = "GEX_OFI_TIMEOUT";
    static final String CQ_DATA = "GEX_OFI_CQ_DATA";
    static final String CQ_WAIT = "GEX_OFI_CQ_WAIT";
    static final String PEER_KEYS = "GEX_OFI_PEER_KEYS";
    /**
     * Providers that refuse an access with a closed key, outside its region or against its access flags by failing
     * that one operation, the connection intact; measured here on libfabric 1.17: {@code sockets} does. tcp;ofi_rxm
     * refuses it, but reads from that peer fail from then on; shm and udp;ofi_rxd never complete it, so the peer looks
     * dead after {@code GEX_OFI_TIMEOUT}.
     */
    static final java.util.Set<String> REFUSING_PROVIDERS = java.util.Set.of("sockets");
    /**
     * Providers whose writes with remote CQ data never complete here: on libfabric 1.17 {@code sockets} takes the
     * first {@code fi_writedata} of a Long payload and reports neither its completion nor, at the target, its data,
     * so every reassembled Long waited out {@code GEX_OFI_TIMEOUT} (the AM kit's Long tests, testam's section G). Their
     * default is no CQ data: Longs go put-sync-send.
     */
    static final java.util.Set<String> NO_WRITE_DATA_PROVIDERS = java.util.Set.of("sockets");

    static final int DEFAULT_FRAME = 16 << 10;
    static final int MIN_FRAME = 1024;
    static final int MAX_FRAME = 1 << 20;

    /** The settings of {@code config}, the endpoint bound by default to {@code bootstrapAddress}. */
    static OfiSettings from(Config config, java.net.InetAddress bootstrapAddress) {
        String provider = config.get(PROVIDER, null);
        if (provider == null || provider.isBlank()) {
            provider = config.get(FI_PROVIDER, null);
        }
        if (provider != null && provider.isBlank()) {
            provider = null;
        }
        final String node = config.get(NODE, bootstrapAddress.getHostAddress());
        final int frame = config.getInt(FRAME, DEFAULT_FRAME, MIN_FRAME, MAX_FRAME);
        // udp;ofi_rxd resends what the kernel drops with a backoff that grew to tens of seconds under a 3-rank flood
        // on 2 cores: a small window keeps its datagrams within the sockets' buffers
        final long defaultCredit = "udp;ofi_rxd".equals(provider) ? 2L * frame : Math.max(128L << 10, 4L * frame);
        final long credit = config.getLong(CREDIT_BYTES, defaultCredit, 2L * frame, 1L << 30);
        final int send = config.getInt(SEND_BUFFERS, 256, 4, 1 << 16);
        final int rma = config.getInt(RMA_OPS, 256, 4, 1 << 16);
        final long timeout = config.getLong(TIMEOUT, 30, 1, 3600);
        final int cqData = config.get(CQ_DATA, null) == null ? -1 : config.getInt(CQ_DATA, Long.BYTES, 0, Long.BYTES);
        if (cqData != -1 && cqData != 0 && cqData != Integer.BYTES && cqData != Long.BYTES) {
            throw new IllegalArgumentException(CQ_DATA + "=" + cqData + " is not one of 0, 4, 8 (bytes of remote CQ"
                + " data the conduit uses)");
        }
        final String cqWait = config.get(CQ_WAIT, "fd");
        if (!cqWait.equals("fd") && !cqWait.equals("none")) {
            throw new IllegalArgumentException(CQ_WAIT + "=" + cqWait + " is not one of fd, none (how a rank with"
                + " nothing to do waits for the completion queue)");
        }
        final String peerKeys = config.get(PEER_KEYS, "auto");
        if (!peerKeys.equals("auto") && !peerKeys.equals("on") && !peerKeys.equals("off")) {
            throw new IllegalArgumentException(PEER_KEYS + "=" + peerKeys + " is not one of auto, on, off (whether"
                + " registered memory is reached by RDMA with its key)");
        }
        return new OfiSettings(provider, node.isBlank() ? null : node, frame, credit, send, rma,
            timeout * 1_000_000_000L, cqData, cqWait.equals("fd"), peerKeys);
    }

    /** Bytes of remote CQ data to use on {@code chosen}: as set, else 8 (0 on the {@link #NO_WRITE_DATA_PROVIDERS}). */
    int cqDataBytes(String chosen) {
        return cqDataBytes >= 0 ? cqDataBytes : NO_WRITE_DATA_PROVIDERS.contains(chosen) ? 0 : Long.BYTES;
    }

    /**
     * Whether registrations are reached by RDMA with their keys on {@code chosen}: {@code on} always (the program
     * promises never to use a descriptor past its registration, its range or its access, as GASNet-EX requires of
     * bound memory: otherwise that provider's failure follows); {@code off} never (over AM, where the owner refuses);
     * {@code auto} on the {@link #REFUSING_PROVIDERS}.
     */
    boolean peerKeys(String chosen) {
        return switch (peerKeys) {
            case "on" -> true;
            case "off" -> false;
            default -> REFUSING_PROVIDERS.contains(chosen);
        };
    }
}
