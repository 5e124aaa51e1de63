package org.gexj.udp;

import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.udp.io.DatagramPort;
import org.gexj.udp.wire.UdpHeaderFlyweight;

/**
 * The sending side of every stream: frames claimed and committed ({@link #claim}, {@link #commit}, {@link #abort}),
 * cut into fragments of at most {@code datagram - header} bytes that enter a stream's window of
 * {@code GEX_UDP_NETWORK_DEPTH} while it has room ({@link #pump}), and sent from the frame's own buffer
 * ({@link #transmit}): the header goes in front of each fragment in place, and the bytes it covers are put back after
 * the send. A stream with that many frames, or {@code GEX_UDP_SEND_BYTES}, unacknowledged refuses claims. Frames stay
 * until the {@link UdpLossRecovery} has every fragment acknowledged and {@link #release}s them.
 *
 * <p>Threads: every method is called with the {@link UdpTransportAgent}'s lock held, which guards the streams, the
 * pool and the header buffers: claim, commit and abort by any sending thread, pump and transmit also by the polling
 * thread when acknowledgements arrive and by the timers. {@code failed} is written by {@link UdpLossRecovery#fail}.
 */
final class UdpSendWindow {
    private static final int HEADER = UdpTransportAgent.HEADER;

    private final int rank;
    private final long cookie;
    private final UdpSettings settings;
    private final DatagramPort port;
    private final UdpCounters counters;
    private final UdpBufferPool pool;
    private final UdpAckSender acks;
    private final int window;
    private final int fragment;
    /** Per peer, whether this rank's datagrams to it checksum their headers only ({@code GEX_UDP_CHECKSUM}). */
    private final boolean[] headerOnly;
    private final UdpSendStream[] sends;
    /** Per peer, reported failed: its claims are refused and its commits dropped. */
    private final boolean[] failed;
    private final UdpHeaderFlyweight out = new UdpHeaderFlyweight();
    private final UnsafeBuffer saved = new UnsafeBuffer(new byte[HEADER]);

    UdpSendWindow(int rank, long cookie, UdpSettings settings, DatagramPort port, UdpCounters counters,
                  UdpBufferPool pool, UdpAckSender acks, boolean[] headerOnly, UdpSendStream[] sends,
                  boolean[] failed) {
        this.rank = rank;
        this.cookie = cookie;
        this.settings = settings;
        this.port = port;
        this.counters = counters;
        this.pool = pool;
        this.acks = acks;
        this.window = settings.depth();
        this.fragment = settings.datagram() - HEADER;
        this.headerOnly = headerOnly;
        this.sends = sends;
        this.failed = failed;
    }

    int claim(Claim claim, int target, int channel, int length) {
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
    }

    void commit(Claim claim) {
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
    }

    void abort(Claim claim) {
        final UdpBuffer b = claimed(claim);
        release(sends[2 * b.target + b.channel], b);
    }

    private UdpBuffer claimed(Claim claim) {
        final UdpBuffer b = pool.byId(claim.handle());
        if (b.committed || b.target != claim.target() || b.channel != claim.channel()) {
            throw new IllegalStateException("claim of " + claim.length() + " bytes to rank " + claim.target()
                + " was already committed or aborted");
        }
        return b;
    }

    /** Gives back a frame aborted, dropped, or acknowledged whole, and its room in the stream. */
    void release(UdpSendStream s, UdpBuffer b) {
        s.frames--;
        s.bytes -= b.frameLength;
        b.committed = true;
        pool.give(b);
    }

    /** Moves queued fragments into the window while it has room. */
    void pump(UdpSendStream s, long now) {
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
    void transmit(UdpSendStream s, long sequence, long now) {
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
        acks.acknowledgements(out, s.peer);
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
}
