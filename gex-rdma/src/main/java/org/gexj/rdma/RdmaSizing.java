package org.gexj.rdma;

import org.gexj.rdma.wire.RdmaHeaderFlyweight;

/**
 * How large the engine's buffers and queues are for a job of {@code size} ranks, from its {@link RdmaSettings}: a
 * conduit asks before it opens its NIC (the completion queue's entries, a send slot's bytes, single receive buffers),
 * and {@link RdmaEngine} sizes its send and receive paths by the same rules.
 */
public final class RdmaSizing {
    /** Receive buffers where each takes many messages: two suffice by the credits; a third covers a slow release. */
    static final int MULTI_RECEIVE_BUFFERS = 3;

    private RdmaSizing() {
    }

    /** Bytes of one send slot: the header and a frame, cache-line aligned. */
    public static int slotBytes(RdmaSettings settings) {
        return (int) align(RdmaHeaderFlyweight.LENGTH + settings.frameLength(), 64);
    }

    /**
     * Receive buffers of one message each, for {@code size} ranks: from each peer, its frames on both channels, the
     * credit messages that return at most as many units as this rank's frames to it took, a CLOSE, and its writes
     * with data in flight (a verbs write with immediate takes a posted receive too), at most its RMA operations.
     */
    public static int singleReceiveBuffers(RdmaSettings settings, int size) {
        return (int) Math.min(1 << 20, size * (4L * settings.messageCredits() + 2 + settings.rmaOperations()));
    }

    /**
     * Completion-queue entries the NIC should provide for {@code size} ranks: every operation that can be pending.
     */
    public static long completionQueueEntries(RdmaSettings settings, int size, boolean multiReceive) {
        final long receives = multiReceive
            ? 2L * size * windowUnits(settings, true)
            : singleReceiveBuffers(settings, size);
        final long entries = (long) settings.sendBuffers() + settings.rmaOperations() + receives + 1024;
        return Math.min(entries, 1 << 20);
    }

    /** A peer's window per channel: bytes in units where messages share buffers, else messages. */
    static int windowUnits(RdmaSettings settings, boolean multiReceive) {
        return multiReceive
            ? (int) Math.min(Integer.MAX_VALUE / 4, settings.creditBytes() / RdmaHeaderFlyweight.CREDIT_UNIT)
            : settings.messageCredits();
    }

    /**
     * What may wait in the receive buffers at once, as frame bytes: every peer's window on both channels, and (where
     * messages share buffers) credit messages. Also what the deferred frames may hold.
     */
    static long outstandingBytes(RdmaSettings settings, int size, boolean multiReceive) {
        return multiReceive
            ? 2L * size * (long) windowUnits(settings, true) * RdmaHeaderFlyweight.CREDIT_UNIT + 2L * size * 16 * 64
            : 2L * size * settings.messageCredits() * (slotBytes(settings) + 16L);
    }

    /** Bytes of one receive buffer: all that may be outstanding and two frames, page aligned, else one slot. */
    static long receiveBufferBytes(RdmaSettings settings, int size, boolean multiReceive) {
        return multiReceive
            ? align(outstandingBytes(settings, size, true) + 2L * slotBytes(settings), RdmaEngine.PAGE)
            : slotBytes(settings);
    }

    /** How many receive buffers are posted. */
    static int receiveBuffers(RdmaSettings settings, int size, boolean multiReceive) {
        return multiReceive ? MULTI_RECEIVE_BUFFERS : singleReceiveBuffers(settings, size);
    }

    private static long align(long n, long to) {
        return (n + to - 1) / to * to;
    }
}
