package org.gexj.udp;

import org.gexj.spi.Claim;
import org.gexj.spi.ConduitListener;
import org.gexj.udp.io.DatagramPort;
import org.gexj.udp.wire.UdpHeaderFlyweight;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntPredicate;

/**
 * Reliable, ordered AM frames over unreliable datagrams: the udp conduit's protocol, apart from sockets so that tests
 * drive it over a lossy {@link DatagramPort}. This class holds the lock, runs the poll loop, routes each datagram
 * that arrives and wires the parts together; the parts do the work:
 * <ul>
 *   <li>{@link UdpSendWindow}: claims and commits, frames cut into fragments, the window of each stream, and the
 *       sends from the frame's own buffer;</li>
 *   <li>{@link UdpAckSender}: the acknowledgements this rank owes, carried by every datagram or sent alone;</li>
 *   <li>{@link UdpLossRecovery}: the acknowledgements that come back, loss detection (RACK and timeouts),
 *       retransmission, and peers reported failed;</li>
 *   <li>{@link UdpReassembler}: in-order delivery, fragments held until their turn, frames reassembled.</li>
 * </ul>
 *
 * <p>Each (peer, channel) pair is a stream of fragments numbered from 0. A frame is cut into fragments of at most
 * {@code datagram - header} bytes, sent from the frame's own buffer (the header goes in front of each fragment in
 * place, and the bytes it covers are put back after the send), and kept until acknowledged. Every datagram to a peer
 * carries what this rank has delivered of both its streams from that peer (cumulative) and which of the next 64
 * fragments it holds (selective); with no traffic to carry it, an acknowledgement goes alone after
 * {@code GEX_UDP_ACK_DELAY_US}, after {@code depth / 4} fragments, or at once on a duplicate, which it reports so
 * that the sender learns its resend was needless. Losses are found two ways: a fragment sent well before one that
 * has arrived is sent again at once (by time, as RACK does, with a reorder window that grows on reported
 * duplicates); and when a stream makes no progress for a timeout ({@code GEX_UDP_RTO_US}, doubling per retry up
 * to {@code GEX_UDP_RTO_MAX_US}) its oldest fragment alone is sent again. After {@code GEX_UDP_RETRIES}
 * retransmissions, or {@code GEX_UDP_PEER_TIMEOUT} without a datagram from a peer that owes acknowledgements, the peer
 * is reported failed.
 *
 * <p>The receiver delivers a stream's frames in order. A fragment that is next, of a one-fragment frame, on a channel
 * the poll takes, is delivered from the receive buffer itself; others are held in slots, or copied into the frame
 * being reassembled, until their turn. Datagrams that fail the header's checks (truncated, wrong version, checksum,
 * foreign job, unknown peer, malformed) are dropped and counted.
 *
 * <p>Threads: one lock around everything, including the socket calls, released while a handler runs, so that other
 * threads send meanwhile and the handler may send and poll again. Polls come from one thread at a time (the SPI's
 * rule), so the receive side only changes under a handler through that thread's nested polls. Nothing here blocks.
 * The parts keep no lock of their own: they are called with this one held.
 */
final class UdpTransportAgent {
    static final int HEADER = UdpHeaderFlyweight.LENGTH;
    /** Polls deeper than this inside handlers receive nothing more: they only deliver what is held. */
    private static final int MAX_DEPTH = 16;

    /** Where a peer's failure goes: the job's health. */
    interface FailureSink {
        void peerFailed(int peer, String reason);
    }

    private final int rank;
    private final int size;
    private final long cookie;
    private final UdpSettings settings;
    private final DatagramPort port;
    private final UdpCounters counters = new UdpCounters();
    private final int window;
    private final int fragment;
    private final ReentrantLock lock = new ReentrantLock();
    private final UdpBufferPool pool;
    private final UdpSendStream[] sends;
    private final UdpReceiveStream[] receives;
    private final UdpAckSender acks;
    private final UdpSendWindow sender;
    private final UdpReassembler reassembler;
    private final UdpLossRecovery recovery;
    /** Per poll depth, the buffer the next datagram is received into. */
    private final UdpBuffer[] staging = new UdpBuffer[MAX_DEPTH + 1];
    private final UdpHeaderFlyweight in = new UdpHeaderFlyweight();
    private int depth;
    private boolean closed;

    UdpTransportAgent(int rank, int size, long cookie, UdpSettings settings, DatagramPort port, FailureSink failures) {
        this.rank = rank;
        this.size = size;
        this.cookie = cookie;
        this.settings = settings;
        this.port = port;
        // a stream's window holds GEX_UDP_SEND_BYTES of frames, in buffers of up to twice their size
        this.pool = new UdpBufferPool(2 * settings.sendBytes());
        this.window = settings.depth();
        this.fragment = settings.datagram() - HEADER;
        final boolean[] headerOnly = new boolean[size];
        for (int p = 0; p < size; p++) {
            headerOnly[p] = settings.checksum().headerOnly(port.withinHost(p));
        }
        this.sends = new UdpSendStream[2 * size];
        this.receives = new UdpReceiveStream[2 * size];
        for (int p = 0; p < size; p++) {
            for (int c = 0; c < 2; c++) {
                sends[2 * p + c] = new UdpSendStream(p, c, window, settings.rtoNanos() / 8);
                receives[2 * p + c] = new UdpReceiveStream(p, c, window);
            }
        }
        final boolean[] failed = new boolean[size];
        this.acks = new UdpAckSender(rank, size, cookie, settings, port, counters, headerOnly, receives,
            pool.take(HEADER));
        this.sender = new UdpSendWindow(rank, cookie, settings, port, counters, pool, acks, headerOnly, sends, failed);
        this.reassembler = new UdpReassembler(lock, pool, counters, acks, window, receives);
        this.recovery = new UdpLossRecovery(settings, counters, sender, acks, failures, sends, failed);
    }

    UdpCounters counters() {
        return counters;
    }

    /** A snapshot of the counters, taken under the lock. */
    java.util.Map<String, Long> snapshot() {
        lock.lock();
        try {
            return counters.snapshot();
        } finally {
            lock.unlock();
        }
    }

    /** Each stream's position, for diagnostics: what a stalled exchange waits for. */
    String state() {
        lock.lock();
        try {
            final StringBuilder b = new StringBuilder("rank ").append(rank).append(':');
            for (int i = 0; i < sends.length; i++) {
                final UdpSendStream s = sends[i];
                final UdpReceiveStream r = receives[i];
                if (s.next == 0 && r.next == 0 && r.held == 0) {
                    continue;
                }
                b.append(" [peer ").append(s.peer).append(" ch ").append(s.channel).append(": sent ").append(s.next)
                    .append(" acked ").append(s.base).append(" queued ").append(s.queued).append(" frames ")
                    .append(s.frames).append("; received ").append(r.next).append(" held ").append(r.held)
                    .append(r.assembly != null ? " assembling " + r.assembled : "")
                    .append(r.ready != null ? " ready" : "").append(r.delivering ? " delivering" : "").append(']');
            }
            return b.toString();
        } finally {
            lock.unlock();
        }
    }

    int fragmentLength() {
        return fragment;
    }

    // ------------------------------------------------------------------------------------------------ sending

    int claim(Claim claim, int target, int channel, int length) {
        lock.lock();
        try {
            ensureOpen();
            return sender.claim(claim, target, channel, length);
        } finally {
            lock.unlock();
        }
    }

    void commit(Claim claim) {
        lock.lock();
        try {
            ensureOpen();
            sender.commit(claim);
        } finally {
            lock.unlock();
        }
    }

    void abort(Claim claim) {
        lock.lock();
        try {
            ensureOpen();
            sender.abort(claim);
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------ receiving

    int poll(ConduitListener listener, int channelMask, int limit) {
        lock.lock();
        try {
            ensureOpen();
            depth++;
            int delivered = reassembler.holding() ? reassembler.deliverHeld(listener, channelMask, limit) : 0;
            if (depth <= MAX_DEPTH) {
                while (delivered < limit) {
                    UdpBuffer into = staging[depth];
                    if (into == null) {
                        // room for a frame of a few fragments, so that its first fragment's buffer can keep it
                        into = staging[depth] = pool.take(2L * settings.datagram());
                    }
                    final int n = port.receive(into.buffer, 0, settings.datagram() + 1);
                    if (n < 0) {
                        break;
                    }
                    counters.datagramsReceived++;
                    delivered += onDatagram(listener, channelMask, into, n, limit - delivered);
                    if (acks.urgent()) {
                        // a poll may drain megabytes: the senders' windows must not wait for its end
                        acks.sendDueAcks(System.nanoTime());
                    }
                }
            }
            final long now = System.nanoTime();
            if (acks.due()) {
                acks.sendDueAcks(now);
            }
            if (recovery.tickDue(now)) {
                recovery.tick(now);
            }
            return delivered;
        } finally {
            depth--;
            lock.unlock();
        }
    }

    /**
     * Takes one datagram: its acknowledgements go to the sending side, its fragment, if it carries one, is delivered
     * from the receive buffer when it is next and whole, kept there as the start of a frame, or held.
     */
    private int onDatagram(ConduitListener listener, int mask, UdpBuffer into, int n, int budget) {
        final UdpHeaderFlyweight h = in.wrap(into.buffer, 0);
        final int verdict = h.check(n, cookie, rank, size);
        if (verdict != UdpHeaderFlyweight.VALID) {
            countDrop(verdict);
            return 0;
        }
        final int peer = h.source();
        final long now = System.nanoTime();
        recovery.onAcknowledgements(h, peer, now);
        if (h.type() != UdpHeaderFlyweight.TYPE_DATA) {
            if (h.ackRequested()) {
                acks.dueAck(peer, now, true);
            }
            return 0;
        }
        final UdpReceiveStream r = receives[2 * peer + h.channel()];
        final long sequence = h.sequence();
        if (sequence < r.next || r.holds(sequence)) {
            counters.duplicates++;
            acks.duplicate(peer, h.channel());
            // the sender repeats itself: our acknowledgement was lost or late
            acks.dueAck(peer, now, true);
            return 0;
        }
        if (sequence >= r.next + window || r.slot[(int) (sequence % window)] != null) {
            counters.droppedOutOfWindow++;
            return 0;
        }
        acks.dueAck(peer, now, false);
        final int frameLength = h.frameLength();
        final int offset = h.fragmentOffset();
        final int length = h.fragmentLength();
        if (sequence == r.next && !r.delivering && r.ready == null) {
            if (r.assembly == null && offset == 0 && length == frameLength) {
                if ((mask & (1 << r.channel)) != 0) {
                    r.next++;
                    reassembler.deliver(listener, r, into, HEADER, length);
                    return 1 + (r.held > 0 ? reassembler.drain(listener, r, mask, budget - 1) : 0);
                }
            } else if (r.assembly == null && offset == 0 && HEADER + frameLength <= into.capacity()) {
                // the first fragment stays where it landed and the frame is completed around it: no copy of it
                r.next++;
                r.assembly = into;
                r.assemblyBase = HEADER;
                r.assembled = length;
                staging[depth] = null;
                return r.held > 0 ? reassembler.drain(listener, r, mask, budget) : 0;
            } else if (offset == (r.assembly == null ? 0 : r.assembled)) {
                r.next++;
                return reassembler.assemble(listener, r, mask, into, HEADER, frameLength, offset, length)
                    + (r.held > 0 ? reassembler.drain(listener, r, mask, budget - 1) : 0);
            }
        }
        reassembler.hold(r, sequence, into, frameLength, offset, length);
        return sequence == r.next ? reassembler.drain(listener, r, mask, budget) : 0;
    }

    private void countDrop(int verdict) {
        switch (verdict) {
            case UdpHeaderFlyweight.TRUNCATED -> counters.droppedTruncated++;
            case UdpHeaderFlyweight.BAD_VERSION -> counters.droppedVersion++;
            case UdpHeaderFlyweight.BAD_CHECKSUM -> counters.droppedChecksum++;
            case UdpHeaderFlyweight.FOREIGN_JOB -> counters.droppedForeignJob++;
            case UdpHeaderFlyweight.UNKNOWN_PEER -> counters.droppedUnknownPeer++;
            default -> counters.droppedMalformed++;
        }
    }

    // ------------------------------------------------------------------------------------------------ closing

    /** True when everything this rank sent has been acknowledged (or its peer failed). */
    boolean settled() {
        return settled(peer -> false);
    }

    /** {@link #settled()}, except that peers that {@code left} the job need not acknowledge. */
    boolean settled(IntPredicate left) {
        lock.lock();
        try {
            return recovery.settled(left);
        } finally {
            lock.unlock();
        }
    }

    /** Sends any acknowledgement still owed, so that peers lingering in their close stop retransmitting. */
    void flushAcks() {
        lock.lock();
        try {
            acks.flush();
        } finally {
            lock.unlock();
        }
    }

    void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            port.close();
            pool.close();
        } finally {
            lock.unlock();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("udp conduit of rank " + rank + " is closed");
        }
    }
}
