package org.gexj.udp;

import org.gexj.udp.wire.UdpHeaderFlyweight;

import java.util.function.IntPredicate;

/**
 * What the sending side does with the acknowledgements that come back, and when they do not come: loss recovery and
 * peer liveness. An acknowledgement releases the fragments it names ({@link #ackSlot}) and moves the window
 * ({@link #acknowledged}). Losses are found two ways: a fragment sent well before one that has arrived is sent again
 * at once (by time, as RACK does, with a reorder window that grows on reported duplicates: {@link #resendOvertaken},
 * {@link #resentNeedlessly}); and when a stream makes no progress for a timeout ({@code GEX_UDP_RTO_US}, doubling per
 * retry up to {@code GEX_UDP_RTO_MAX_US}) its oldest fragment alone is sent again ({@link #tick}). After
 * {@code GEX_UDP_RETRIES} retransmissions, or {@code GEX_UDP_PEER_TIMEOUT} without a datagram from a peer that owes
 * acknowledgements, the peer is reported failed ({@link #fail}).
 *
 * <p>Threads: every method is called with the {@link UdpTransportAgent}'s lock held, which guards the streams, the
 * silences and {@code failed}: {@link #onAcknowledgements} and {@link #tick} by the polling thread, {@link #settled} by
 * the closing thread.
 */
final class UdpLossRecovery {
    /** How often a poll looks for timeouts ({@link #tick}). */
    private static final long TICK_NANOS = 20_000;
    /** What {@link #ackSlot} returns for a fragment acknowledged first but sent more than once. */
    private static final long RESENT = Long.MIN_VALUE + 1;

    private final UdpSettings settings;
    private final UdpCounters counters;
    private final UdpSendWindow sender;
    private final UdpAckSender acks;
    private final UdpTransportAgent.FailureSink failures;
    private final int window;
    private final UdpSendStream[] sends;
    /** Per peer, reported failed; the {@link UdpSendWindow} refuses its claims. */
    private final boolean[] failed;
    /** Per peer, when a datagram last came from it. */
    private final long[] lastHeard;
    private long lastTick;

    UdpLossRecovery(UdpSettings settings, UdpCounters counters, UdpSendWindow sender, UdpAckSender acks,
                    UdpTransportAgent.FailureSink failures, UdpSendStream[] sends, boolean[] failed) {
        this.settings = settings;
        this.counters = counters;
        this.sender = sender;
        this.acks = acks;
        this.failures = failures;
        this.window = settings.depth();
        this.sends = sends;
        this.failed = failed;
        this.lastHeard = new long[failed.length];
        java.util.Arrays.fill(lastHeard, System.nanoTime());
    }

    /** Takes what a valid datagram from {@code peer} says about this rank's streams to it. */
    void onAcknowledgements(UdpHeaderFlyweight h, int peer, long now) {
        lastHeard[peer] = now;
        for (int c = 0; c < 2; c++) {
            final UdpSendStream s = sends[2 * peer + c];
            if (h.duplicateReported(c)) {
                resentNeedlessly(s, now);
            }
            acknowledged(s, h.next(c), h.selective(c), now);
        }
    }

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
            s.cleanAcknowledgement(settings.rtoNanos() / 8);
            if (newest > RESENT && newest > s.deliveredSentAt) {
                s.deliveredSentAt = newest;
            }
            if (s.base != s.next) {
                resendOvertaken(s, now);
            }
        }
        sender.pump(s, now);
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
     * Loss detection by time (RACK, RFC 8985, simplified), with a reorder window that starts at {@code GEX_UDP_RTO_US /
     * 8}, grows when the peer reports duplicates and shrinks back after {@value UdpSendStream#REORDER_DECAY_ACKS} clean
     * acknowledgements. A fragment is lost when it was sent more than the window before one that has since arrived
     * (this repairs what was sent before a timeout's resend came back); or when the peer holds fragments after it and
     * it was sent, once, more than the window ago: a hole in a burst, whose fragments were sent at the same time, is
     * repaired by this timer (RACK's reorder timer) and not one timeout at a time. Called on acknowledgements and from
     * {@link #tick} while there are holes.
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
                sender.transmit(s, q, now);
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
            sender.release(s, b);
        }
        return s.slotRetries[at] == 0 ? s.slotSentAt[at] : RESENT;
    }

    /** True when the timers are due to run again ({@link #tick}). */
    boolean tickDue(long now) {
        return now - lastTick >= TICK_NANOS;
    }

    /** Retransmits what timed out and fails peers that stopped answering. */
    void tick(long now) {
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
                acks.sendAck(s.peer, true);
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
                    sender.transmit(s, q, now);
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

    /**
     * True when everything this rank sent has been acknowledged, or its peer failed or {@code left} (closed its
     * client: its final barrier is complete, so it needs nothing more and its socket may be gone).
     */
    boolean settled(IntPredicate left) {
        for (UdpSendStream s : sends) {
            if (s.unacknowledged() && !failed[s.peer] && !left.test(s.peer)) {
                return false;
            }
        }
        return true;
    }
}
