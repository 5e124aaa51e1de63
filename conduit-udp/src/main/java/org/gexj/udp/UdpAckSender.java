package org.gexj.udp;

import org.gexj.udp.io.DatagramPort;
import org.gexj.udp.wire.UdpHeaderFlyweight;

/**
 * The acknowledgements this rank owes its peers. Every datagram to a peer carries what this rank has delivered of both
 * its streams from that peer (cumulative), which of the next 64 fragments it holds (selective) and on which channels a
 * duplicate came ({@link #acknowledgements}); with no traffic to carry them, an acknowledgement goes alone
 * ({@link #sendDueAcks}) after {@code GEX_UDP_ACK_DELAY_US}, after {@code depth / 4} fragments, or at once on a
 * duplicate or a sender's request ({@link #dueAck}).
 *
 * <p>Threads: every method is called with the {@link UdpTransportAgent}'s lock held, which guards all the state here;
 * {@link #acknowledgements} by the {@link UdpSendWindow} as it sends, {@link #dueAck} and {@link #duplicate} by the
 * polling thread as fragments arrive, {@link #sendAck} also by the {@link UdpLossRecovery}'s timer, {@link #flush} by
 * the closing thread.
 */
final class UdpAckSender {
    private static final int HEADER = UdpTransportAgent.HEADER;

    private final int rank;
    private final int size;
    private final long cookie;
    private final UdpSettings settings;
    private final DatagramPort port;
    private final UdpCounters counters;
    private final int window;
    /** Per peer, whether this rank's datagrams to it checksum their headers only ({@code GEX_UDP_CHECKSUM}). */
    private final boolean[] headerOnly;
    /** What this rank has delivered and holds, read to acknowledge it; the {@link UdpReassembler} moves them. */
    private final UdpReceiveStream[] receives;
    private final boolean[] ackDue;
    private final boolean[] ackNow;
    private final long[] ackDueSince;
    private final int[] ackDueCount;
    /** Per peer, the channels on which a duplicate came since this rank last told the peer (bit per channel). */
    private final int[] duplicatesSeen;
    private final int ackEvery;
    private final UdpBuffer ackBuffer;
    private final UdpHeaderFlyweight out = new UdpHeaderFlyweight();
    private int acksDue;
    /** Some peer is owed an acknowledgement now (a duplicate came, or a quarter window), not at the poll's end. */
    private boolean urgentAcks;

    UdpAckSender(int rank, int size, long cookie, UdpSettings settings, DatagramPort port, UdpCounters counters,
                 boolean[] headerOnly, UdpReceiveStream[] receives, UdpBuffer ackBuffer) {
        this.rank = rank;
        this.size = size;
        this.cookie = cookie;
        this.settings = settings;
        this.port = port;
        this.counters = counters;
        this.window = settings.depth();
        this.headerOnly = headerOnly;
        this.receives = receives;
        this.ackEvery = Math.max(1, window / 4);
        this.ackDue = new boolean[size];
        this.ackNow = new boolean[size];
        this.ackDueSince = new long[size];
        this.ackDueCount = new int[size];
        this.duplicatesSeen = new int[size];
        this.ackBuffer = ackBuffer;
    }

    /** Some peer is owed an acknowledgement. */
    boolean due() {
        return acksDue > 0;
    }

    /** Some peer is owed an acknowledgement now, not at the poll's end. */
    boolean urgent() {
        return urgentAcks;
    }

    /**
     * Writes into {@code header} what this rank tells {@code peer} about both streams from it; that is then sent, so
     * the peer is owed nothing more.
     */
    void acknowledgements(UdpHeaderFlyweight header, int peer) {
        for (int c = 0; c < 2; c++) {
            final UdpReceiveStream r = receives[2 * peer + c];
            header.acknowledgement(c, r.next, selective(r));
        }
        header.duplicates(duplicatesSeen[peer]);
        duplicatesSeen[peer] = 0;
        if (ackDue[peer]) {
            ackDue[peer] = false;
            ackNow[peer] = false;
            acksDue--;
        }
    }

    private long selective(UdpReceiveStream r) {
        if (r.held == 0) {
            return 0;
        }
        long bits = 0;
        final int span = Math.min(64, window);
        for (int k = 0; k < span; k++) {
            if (r.holds(r.next + k)) {
                bits |= 1L << k;
            }
        }
        return bits;
    }

    /** Sends an acknowledgement alone; {@code request} asks the peer for one back. */
    void sendAck(int peer, boolean request) {
        out.wrap(ackBuffer.buffer, 0).ack(cookie, rank, peer, request);
        acknowledgements(out, peer);
        out.seal(HEADER, headerOnly[peer]);
        if (headerOnly[peer]) {
            counters.headerChecksumOnly++;
        }
        if (!port.send(peer, ackBuffer.buffer, 0, HEADER)) {
            counters.sendRefused++;
        }
        counters.acksSent++;
        counters.datagramsSent++;
    }

    /** A duplicate came from {@code peer} on {@code channel}: the next datagram to it says so. */
    void duplicate(int peer, int channel) {
        duplicatesSeen[peer] |= 1 << channel;
    }

    void dueAck(int peer, long now, boolean immediately) {
        if (!ackDue[peer]) {
            ackDue[peer] = true;
            ackDueSince[peer] = now;
            ackDueCount[peer] = 0;
            acksDue++;
        }
        ackDueCount[peer]++;
        ackNow[peer] |= immediately;
        urgentAcks |= immediately || ackDueCount[peer] >= ackEvery;
    }

    void sendDueAcks(long now) {
        urgentAcks = false;
        for (int p = 0; p < size && acksDue > 0; p++) {
            if (ackDue[p] && (ackNow[p] || ackDueCount[p] >= ackEvery
                || now - ackDueSince[p] >= settings.ackDelayNanos())) {
                sendAck(p, false);
            }
        }
    }

    /** Sends every acknowledgement still owed, due or not. */
    void flush() {
        for (int p = 0; p < size; p++) {
            if (ackDue[p]) {
                sendAck(p, false);
            }
        }
    }
}
