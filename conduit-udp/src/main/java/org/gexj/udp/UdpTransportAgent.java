package org.gexj.udp;

import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.udp.io.DatagramPort;
import org.gexj.udp.wire.UdpHeaderFlyweight;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Reliable, ordered AM frames over unreliable datagrams: the udp conduit's protocol, apart from sockets so that tests
 * drive it over a lossy {@link DatagramPort}.
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
 */
final class UdpTransportAgent {
    static final int HEADER = UdpHeaderFlyweight.LENGTH;
    /** Polls deeper than this inside handlers receive nothing more: they only deliver what is held. */
    private static final int MAX_DEPTH = 16;
    private static final long TICK_NANOS = 20_000;
    /** Acknowledgements with progress, with no duplicate reported, after which a grown reorder window halves. */
    private static final int REORDER_DECAY_ACKS = 1 << 16;
    /** What {@link #ackSlot} returns for a fragment acknowledged first but sent more than once. */
    private static final long RESENT = Long.MIN_VALUE + 1;

    /** Where a peer's failure goes: the job's health. */
    interface FailureSink {
        void peerFailed(int peer, String reason);
    }

    private final int rank;
    private final int size;
    private final long cookie;
    private final UdpSettings settings;
    private final DatagramPort port;
    private final FailureSink failures;
    private final UdpCounters counters = new UdpCounters();
    private final int window;
    private final int fragment;
    /** Per peer, whether this rank's datagrams to it checksum their headers only ({@code GEX_UDP_CHECKSUM}). */
    private final boolean[] headerOnly;
    private final ReentrantLock lock = new ReentrantLock();
    private final UdpBufferPool pool;
    private final UdpSendStream[] sends;
    private final UdpReceiveStream[] receives;
    private final long[] lastHeard;
    private final boolean[] ackDue;
    private final boolean[] ackNow;
    private final long[] ackDueSince;
    private final int[] ackDueCount;
    /** Per peer, the channels on which a duplicate came since this rank last told the peer (bit per channel). */
    private final int[] duplicatesSeen;
    private final boolean[] failed;
    private int acksDue;
    /** Some peer is owed an acknowledgement now (a duplicate came, or a quarter window), not at the poll's end. */
    private boolean urgentAcks;
    private final int ackEvery;
    private int heldTotal;
    private final UdpBuffer[] staging = new UdpBuffer[MAX_DEPTH + 1];
    private final UdpBuffer ackBuffer;
    private final UdpHeaderFlyweight out = new UdpHeaderFlyweight();
    private final UdpHeaderFlyweight in = new UdpHeaderFlyweight();
    private final UnsafeBuffer saved = new UnsafeBuffer(new byte[HEADER]);
    private int depth;
    private long lastTick;
    private boolean closed;

    UdpTransportAgent(int rank, int size, long cookie, UdpSettings settings, DatagramPort port, FailureSink failures) {
        this.rank = rank;
        this.size = size;
        this.cookie = cookie;
        this.settings = settings;
        this.port = port;
        this.failures = failures;
        // a stream's window holds GEX_UDP_SEND_BYTES of frames, in buffers of up to twice their size
        this.pool = new UdpBufferPool(2 * settings.sendBytes());
        this.window = settings.depth();
        this.fragment = settings.datagram() - HEADER;
        this.headerOnly = new boolean[size];
        for (int p = 0; p < size; p++) {
            headerOnly[p] = settings.checksum().headerOnly(port.withinHost(p));
        }
        this.ackEvery = Math.max(1, window / 4);
        this.sends = new UdpSendStream[2 * size];
        this.receives = new UdpReceiveStream[2 * size];
        for (int p = 0; p < size; p++) {
            for (int c = 0; c < 2; c++) {
                sends[2 * p + c] = new UdpSendStream(p, c, window, settings.rtoNanos() / 8);
                receives[2 * p + c] = new UdpReceiveStream(p, c, window);
            }
        }
        this.lastHeard = new long[size];
        java.util.Arrays.fill(lastHeard, System.nanoTime());
        this.ackDue = new boolean[size];
        this.ackNow = new boolean[size];
        this.ackDueSince = new long[size];
        this.ackDueCount = new int[size];
        this.duplicatesSeen = new int[size];
        this.failed = new boolean[size];
        this.ackBuffer = pool.take(HEADER);
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
            final UdpSendStream s = sends[2 * target + channel];
            if (failed[target] || s.frames >= window || (s.frames > 0 && s.bytes + length > settings.sendBytes())) {
                // no timers here: acknowledgements may wait unread in the socket while this rank sent, and only a
                // poll, which reads them first, knows whether a fragment is overdue
                counters.windowStalls++;
                return Conduit.NO_ROOM;
            }
            final UdpBuffer b = pool.take((long) HEADER + length);
            b.frameLength = length;
            b.target = target;
            b.channel = channel;
            b.fragmentsAssigned = 0;
            b.fragmentsUnacked = 0;
            b.fragmentCount = Math.max(1, (length + fragment - 1) / fragment);
            b.committed = false;
            s.frames++;
            s.bytes += length;
            claim.set(b.buffer, HEADER, length, target, channel, b.id);
            return Conduit.OK;
        } finally {
            lock.unlock();
        }
    }

    void commit(Claim claim) {
        lock.lock();
        try {
            ensureOpen();
            final UdpBuffer b = claimed(claim);
            final UdpSendStream s = sends[2 * b.target + b.channel];
            if (failed[b.target]) {
                release(s, b);
                return;
            }
            b.committed = true;
            s.queue[(s.queueHead + s.queued) % window] = b;
            s.queued++;
            counters.framesSent++;
            pump(s, System.nanoTime());
        } finally {
            lock.unlock();
        }
    }

    void abort(Claim claim) {
        lock.lock();
        try {
            ensureOpen();
            final UdpBuffer b = claimed(claim);
            release(sends[2 * b.target + b.channel], b);
        } finally {
            lock.unlock();
        }
    }

    private UdpBuffer claimed(Claim claim) {
        final UdpBuffer b = pool.byId(claim.handle());
        if (b.committed || b.target != claim.target() || b.channel != claim.channel()) {
            throw new IllegalStateException("claim of " + claim.length() + " bytes to rank " + claim.target()
                + " was already committed or aborted");
        }
        return b;
    }

    private void release(UdpSendStream s, UdpBuffer b) {
        s.frames--;
        s.bytes -= b.frameLength;
        b.committed = true;
        pool.give(b);
    }

    /** Moves queued fragments into the window while it has room. */
    private void pump(UdpSendStream s, long now) {
        if (s.queued > 0 && s.next == s.base) {
            s.waitingSince = now;
        }
        while (s.queued > 0 && s.next - s.base < window) {
            final UdpBuffer b = s.queue[s.queueHead];
            final int offset = b.fragmentsAssigned * fragment;
            final long sequence = s.next++;
            final int at = (int) (sequence % window);
            s.slotFrame[at] = b;
            s.slotSequence[at] = sequence;
            s.slotOffset[at] = offset;
            s.slotLength[at] = Math.min(fragment, b.frameLength - offset);
            s.slotRetries[at] = 0;
            s.slotAcked[at] = false;
            b.fragmentsAssigned++;
            b.fragmentsUnacked++;
            if (b.fragmentsAssigned == b.fragmentCount) {
                s.queue[s.queueHead] = null;
                s.queueHead = (s.queueHead + 1) % window;
                s.queued--;
            }
            transmit(s, sequence, now);
        }
    }

    /** Sends fragment {@code sequence} of {@code s} from its frame's buffer, its header in front of it. */
    private void transmit(UdpSendStream s, long sequence, long now) {
        final int at = (int) (sequence % window);
        final UdpBuffer b = s.slotFrame[at];
        final int offset = s.slotOffset[at];
        final int length = s.slotLength[at];
        // the header goes over the end of the previous fragment (or the room claim left): keep those bytes
        if (offset > 0) {
            b.buffer.getBytes(offset, saved, 0, HEADER);
        }
        out.wrap(b.buffer, offset)
            .data(cookie, rank, s.peer, s.channel, sequence, b.frameLength, offset, length);
        acknowledgements(s.peer);
        out.seal(HEADER + length, headerOnly[s.peer]);
        if (headerOnly[s.peer]) {
            counters.headerChecksumOnly++;
        }
        if (!port.send(s.peer, b.buffer, offset, offset + HEADER + length)) {
            counters.sendRefused++;
        }
        if (offset > 0) {
            b.buffer.putBytes(offset, saved, 0, HEADER);
        }
        s.slotSentAt[at] = now;
        counters.datagramsSent++;
        counters.bytesSent += HEADER + length;
    }

    /** Writes into {@link #out} what this rank tells {@code peer} about both streams from it; that is then sent. */
    private void acknowledgements(int peer) {
        for (int c = 0; c < 2; c++) {
            final UdpReceiveStream r = receives[2 * peer + c];
            out.acknowledgement(c, r.next, selective(r));
        }
        out.duplicates(duplicatesSeen[peer]);
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

    private void sendAck(int peer, boolean request) {
        out.wrap(ackBuffer.buffer, 0).ack(cookie, rank, peer, request);
        acknowledgements(peer);
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

    // ------------------------------------------------------------------------------------------------ receiving

    int poll(ConduitListener listener, int channelMask, int limit) {
        lock.lock();
        try {
            ensureOpen();
            depth++;
            int delivered = heldTotal > 0 ? deliverHeld(listener, channelMask, limit) : 0;
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
                    if (urgentAcks) {
                        // a poll may drain megabytes: the senders' windows must not wait for its end
                        sendDueAcks(System.nanoTime());
                    }
                }
            }
            final long now = System.nanoTime();
            if (acksDue > 0) {
                sendDueAcks(now);
            }
            if (now - lastTick >= TICK_NANOS) {
                tick(now);
            }
            return delivered;
        } finally {
            depth--;
            lock.unlock();
        }
    }

    private int onDatagram(ConduitListener listener, int mask, UdpBuffer into, int n, int budget) {
        final UdpHeaderFlyweight h = in.wrap(into.buffer, 0);
        final int verdict = h.check(n, cookie, rank, size);
        if (verdict != UdpHeaderFlyweight.VALID) {
            countDrop(verdict);
            return 0;
        }
        final int peer = h.source();
        final long now = System.nanoTime();
        lastHeard[peer] = now;
        for (int c = 0; c < 2; c++) {
            final UdpSendStream s = sends[2 * peer + c];
            if (h.duplicateReported(c)) {
                resentNeedlessly(s, now);
            }
            acknowledged(s, h.next(c), h.selective(c), now);
        }
        if (h.type() != UdpHeaderFlyweight.TYPE_DATA) {
            if (h.ackRequested()) {
                dueAck(peer, now, true);
            }
            return 0;
        }
        final UdpReceiveStream r = receives[2 * peer + h.channel()];
        final long sequence = h.sequence();
        if (sequence < r.next || r.holds(sequence)) {
            counters.duplicates++;
            duplicatesSeen[peer] |= 1 << h.channel();
            // the sender repeats itself: our acknowledgement was lost or late
            dueAck(peer, now, true);
            return 0;
        }
        if (sequence >= r.next + window || r.slot[(int) (sequence % window)] != null) {
            counters.droppedOutOfWindow++;
            return 0;
        }
        dueAck(peer, now, false);
        final int frameLength = h.frameLength();
        final int offset = h.fragmentOffset();
        final int length = h.fragmentLength();
        if (sequence == r.next && !r.delivering && r.ready == null) {
            if (r.assembly == null && offset == 0 && length == frameLength) {
                if ((mask & (1 << r.channel)) != 0) {
                    r.next++;
                    deliver(listener, r, into, HEADER, length);
                    return 1 + (r.held > 0 ? drain(listener, r, mask, budget - 1) : 0);
                }
            } else if (r.assembly == null && offset == 0 && HEADER + frameLength <= into.capacity()) {
                // the first fragment stays where it landed and the frame is completed around it: no copy of it
                r.next++;
                r.assembly = into;
                r.assemblyBase = HEADER;
                r.assembled = length;
                staging[depth] = null;
                return r.held > 0 ? drain(listener, r, mask, budget) : 0;
            } else if (offset == (r.assembly == null ? 0 : r.assembled)) {
                r.next++;
                return assemble(listener, r, mask, into, HEADER, frameLength, offset, length)
                    + (r.held > 0 ? drain(listener, r, mask, budget - 1) : 0);
            }
        }
        hold(r, sequence, into, frameLength, offset, length);
        return sequence == r.next ? drain(listener, r, mask, budget) : 0;
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

    private void dueAck(int peer, long now, boolean immediately) {
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

    private void sendDueAcks(long now) {
        urgentAcks = false;
        for (int p = 0; p < size && acksDue > 0; p++) {
            if (ackDue[p] && (ackNow[p] || ackDueCount[p] >= ackEvery
                || now - ackDueSince[p] >= settings.ackDelayNanos())) {
                sendAck(p, false);
            }
        }
    }

    private void hold(UdpReceiveStream r, long sequence, UdpBuffer from, int frameLength, int offset, int length) {
        final int at = (int) (sequence % window);
        final UdpBuffer b = pool.take(Math.max(1, length));
        b.buffer.putBytes(0, from.buffer, HEADER, length);
        r.slot[at] = b;
        r.slotSequence[at] = sequence;
        r.slotFrameLength[at] = frameLength;
        r.slotFragmentOffset[at] = offset;
        r.slotLength[at] = length;
        r.held++;
        heldTotal++;
    }

    private void unhold(UdpReceiveStream r, int at) {
        pool.give(r.slot[at]);
        r.slot[at] = null;
        r.held--;
        heldTotal--;
    }

    /** Delivers the held fragments of {@code r} that are next, while the poll takes their channel. */
    private int drain(ConduitListener listener, UdpReceiveStream r, int mask, int budget) {
        int delivered = 0;
        boolean advanced = false;
        final boolean taken = (mask & (1 << r.channel)) != 0;
        if (r.ready != null) {
            if (!taken || r.delivering || budget <= 0) {
                return 0;
            }
            final UdpBuffer b = r.ready;
            r.ready = null;
            heldTotal--;
            delivered++;
            try {
                deliver(listener, r, b, r.readyBase, r.readyLength);
            } finally {
                pool.give(b);
            }
        }
        while (!r.delivering && r.ready == null && r.held > 0 && r.holds(r.next)) {
            final int at = (int) (r.next % window);
            final UdpBuffer b = r.slot[at];
            final int frameLength = r.slotFrameLength[at];
            final int offset = r.slotFragmentOffset[at];
            final int length = r.slotLength[at];
            if (r.assembly == null && offset == 0 && length == frameLength) {
                if (!taken || delivered >= budget) {
                    break;
                }
                r.next++;
                // the slot stays held while its frame is delivered: a poll inside the handler leaves it alone
                delivered++;
                advanced = true;
                try {
                    deliver(listener, r, b, 0, length);
                } finally {
                    unhold(r, at);
                }
            } else if (offset == (r.assembly == null ? 0 : r.assembled)) {
                r.next++;
                advanced = true;
                try {
                    delivered += assemble(listener, r, taken ? mask : 0, b, 0, frameLength, offset, length);
                } finally {
                    unhold(r, at);
                }
            } else {
                // a fragment that cannot follow the frame being reassembled: only a sender bug makes one
                counters.droppedMalformed++;
                r.next++;
                unhold(r, at);
            }
        }
        if (advanced) {
            // the sender knows these fragments only as held: tell it they are delivered, so its window moves
            dueAck(r.peer, System.nanoTime(), false);
        }
        return delivered;
    }

    /** Copies a fragment into the frame being reassembled; delivers the frame when it is whole. */
    private int assemble(ConduitListener listener, UdpReceiveStream r, int mask, UdpBuffer from, int at,
                         int frameLength, int offset, int length) {
        if (r.assembly == null) {
            r.assembly = pool.take(Math.max(1, frameLength));
            r.assemblyBase = 0;
            r.assembled = 0;
        }
        r.assembly.buffer.putBytes(r.assemblyBase + offset, from.buffer, at, length);
        r.assembled += length;
        if (r.assembled < frameLength) {
            return 0;
        }
        final UdpBuffer whole = r.assembly;
        final int base = r.assemblyBase;
        r.assembly = null;
        if ((mask & (1 << r.channel)) == 0) {
            r.ready = whole;
            r.readyBase = base;
            r.readyLength = frameLength;
            heldTotal++;
            return 0;
        }
        try {
            deliver(listener, r, whole, base, frameLength);
        } finally {
            pool.give(whole);
        }
        return 1;
    }

    /**
     * Runs the frame's handler without the lock (held once, by this poll), so other threads send meanwhile; the
     * stream stays marked, and the buffer held, until it returns.
     */
    private void deliver(ConduitListener listener, UdpReceiveStream r, UdpBuffer b, int offset, int length) {
        r.delivering = true;
        counters.framesDelivered++;
        lock.unlock();
        try {
            listener.onFrame(r.channel, b.buffer, offset, length);
        } finally {
            lock.lock();
            r.delivering = false;
        }
    }

    /** Delivers what earlier polls held for channels they did not take. */
    private int deliverHeld(ConduitListener listener, int mask, int limit) {
        int delivered = 0;
        for (int i = 0; i < receives.length && delivered < limit && heldTotal > 0; i++) {
            final UdpReceiveStream r = receives[i];
            if ((mask & (1 << r.channel)) != 0 && (r.ready != null || r.held > 0)) {
                delivered += drain(listener, r, mask, limit - delivered);
            }
        }
        return delivered;
    }

    // ---------------------------------------------------------------------------------------- acknowledgements

    private void acknowledged(UdpSendStream s, long next, long selective, long now) {
        if (next > s.next) {
            counters.droppedMalformed++;
            return;
        }
        long newest = Long.MIN_VALUE;
        while (s.base < next) {
            newest = Math.max(newest, ackSlot(s, s.base));
            s.base++;
        }
        s.ackedAbove = Math.max(s.ackedAbove, next);
        for (long bits = selective; bits != 0; bits &= bits - 1) {
            final long sequence = next + Long.numberOfTrailingZeros(bits);
            // a late acknowledgement may name fragments acknowledged since, whose slots now hold others
            if (sequence >= s.base && sequence < s.next) {
                newest = Math.max(newest, ackSlot(s, sequence));
                s.ackedAbove = Math.max(s.ackedAbove, sequence + 1);
            }
        }
        if (newest != Long.MIN_VALUE) {
            s.progressAt = now;
            if (++s.acksSinceDuplicate >= REORDER_DECAY_ACKS) {
                s.acksSinceDuplicate = 0;
                s.reorderNanos = Math.max(settings.rtoNanos() / 8, s.reorderNanos / 2);
            }
            if (newest > RESENT && newest > s.deliveredSentAt) {
                s.deliveredSentAt = newest;
            }
            if (s.base != s.next) {
                resendOvertaken(s, now);
            }
        }
        pump(s, now);
    }

    /**
     * The peer got a duplicate on {@code s}: a fragment resent as lost had only been overtaken (a loopback or veth
     * datagram queued on a busy core's backlog arrives milliseconds late) or delayed. The reorder window doubles, at
     * most once per window's length and up to {@code GEX_UDP_RTO_US}, as RACK's does on a D-SACK (RFC 8985 6.2.4).
     */
    private void resentNeedlessly(UdpSendStream s, long now) {
        counters.needlessReported++;
        s.acksSinceDuplicate = 0;
        if (now - s.reorderRaisedAt > s.reorderNanos) {
            s.reorderRaisedAt = now;
            s.reorderNanos = Math.min(settings.rtoNanos(), 2 * s.reorderNanos);
        }
    }

    /**
     * Loss detection by time (RACK, RFC 8985, simplified), with a reorder window that starts at
     * {@code GEX_UDP_RTO_US / 8}, grows when the peer reports duplicates and shrinks back after
     * {@value #REORDER_DECAY_ACKS} clean acknowledgements. A fragment is lost when it was sent more than the window
     * before one that has since arrived (this repairs what was sent before a timeout's resend came back); or when the
     * peer holds fragments after it and it was sent, once, more than the window ago: a hole in a burst, whose
     * fragments were sent at the same time, is repaired by this timer (RACK's reorder timer) and not one timeout at a
     * time. Called on acknowledgements and from {@link #tick} while there are holes.
     */
    private void resendOvertaken(UdpSendStream s, long now) {
        // MIN_VALUE: only resent fragments were acknowledged yet, no send time to measure against (and - w wraps)
        final long before = s.deliveredSentAt == Long.MIN_VALUE ? Long.MIN_VALUE : s.deliveredSentAt - s.reorderNanos;
        final long holesBelow = Math.min(s.ackedAbove, s.next);
        for (long q = s.base; q < s.next; q++) {
            final int at = (int) (q % window);
            if (s.slotAcked[at]) {
                continue;
            }
            final long sentAt = s.slotSentAt[at];
            if (q >= holesBelow && s.slotRetries[at] == 0 && sentAt >= before) {
                // fragments go out in sequence order, so the later ones were sent no earlier: none is overdue or
                // below a hole (one sent with an older clock reading waits for the timeout), and an acknowledgement
                // of a full window does not scan all of it
                break;
            }
            if (sentAt < before || (q < holesBelow && s.slotRetries[at] == 0 && now - sentAt >= s.reorderNanos)) {
                s.slotRetries[at]++;
                counters.fastRetransmitted++;
                counters.retransmitted++;
                transmit(s, q, now);
            }
        }
    }

    /**
     * @return when the fragment was sent, if this acknowledges it first; {@link #RESENT} if it was sent more than once
     *         (the acknowledgement may be the first send's: its time says nothing, Karn's rule); else
     *         {@link Long#MIN_VALUE}
     */
    private long ackSlot(UdpSendStream s, long sequence) {
        final int at = (int) (sequence % window);
        if (s.slotAcked[at] || s.slotFrame[at] == null || s.slotSequence[at] != sequence) {
            return Long.MIN_VALUE;
        }
        s.slotAcked[at] = true;
        final UdpBuffer b = s.slotFrame[at];
        s.slotFrame[at] = null;
        b.fragmentsUnacked--;
        if (b.fragmentsUnacked == 0 && b.fragmentsAssigned == b.fragmentCount) {
            release(s, b);
        }
        return s.slotRetries[at] == 0 ? s.slotSentAt[at] : RESENT;
    }

    // ------------------------------------------------------------------------------------------------ timers

    /** Retransmits what timed out and fails peers that stopped answering. */
    private void tick(long now) {
        lastTick = now;
        for (UdpSendStream s : sends) {
            if (s.base == s.next || failed[s.peer]) {
                continue;
            }
            if (now - Math.max(lastHeard[s.peer], s.waitingSince) > settings.peerTimeoutNanos()) {
                fail(s.peer, "udp: rank " + s.peer + " sent nothing for " + settings.peerTimeoutNanos() / 1_000_000_000L
                    + " s while owing acknowledgements (" + UdpSettings.PEER_TIMEOUT + ")");
                continue;
            }
            if (s.ackedAbove > s.base) {
                resendOvertaken(s, now);
            }
            final int first = (int) (s.base % window);
            if (s.slotAcked[first] && now - s.probedAt >= settings.rtoNanos()) {
                // everything unacknowledged is held there: only the cumulative acknowledgement is missing, and the
                // receiver, which has nothing to repeat, must be asked for it
                s.probedAt = now;
                sendAck(s.peer, true);
            }
            // the timer runs from the later of the oldest fragment's send and the stream's last progress, so a
            // fragment queued behind megabytes still in flight is not resent; a timeout resends the oldest fragment
            // only, so a peer busy in a handler gets one datagram per timeout, and once that one is acknowledged the
            // fragments sent before it are resent (resendOvertaken)
            for (long q = s.base; q < s.next; q++) {
                final int at = (int) (q % window);
                if (s.slotAcked[at]) {
                    continue;
                }
                final int retries = s.slotRetries[at];
                if (now - Math.max(s.slotSentAt[at], s.progressAt) >= rto(retries)) {
                    if (retries >= settings.retries()) {
                        fail(s.peer, "udp: rank " + s.peer + " did not acknowledge a datagram sent "
                            + (retries + 1) + " times (" + UdpSettings.RETRIES + "=" + settings.retries() + ")");
                        break;
                    }
                    s.slotRetries[at] = retries + 1;
                    counters.retransmitted++;
                    transmit(s, q, now);
                }
                break;
            }
        }
    }

    private long rto(int retries) {
        return Math.min(settings.rtoMaxNanos(), settings.rtoNanos() << Math.min(retries, 30));
    }

    private void fail(int peer, String reason) {
        failed[peer] = true;
        failures.peerFailed(peer, reason);
    }

    // ------------------------------------------------------------------------------------------------ closing

    /** True when everything this rank sent has been acknowledged (or its peer failed). */
    boolean settled() {
        lock.lock();
        try {
            for (UdpSendStream s : sends) {
                if (s.unacknowledged() && !failed[s.peer]) {
                    return false;
                }
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Sends any acknowledgement still owed, so that peers lingering in their close stop retransmitting. */
    void flushAcks() {
        lock.lock();
        try {
            for (int p = 0; p < size; p++) {
                if (ackDue[p]) {
                    sendAck(p, false);
                }
            }
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
