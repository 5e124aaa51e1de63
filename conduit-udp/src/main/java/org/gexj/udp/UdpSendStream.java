package org.gexj.udp;

/**
 * The reliable stream of one channel from this rank to one peer, sending side: a window of {@code W} fragments
 * numbered in sequence, each kept in its frame's buffer until acknowledged, and the committed frames whose fragments
 * wait for room in the window.
 */
final class UdpSendStream {
    final int peer;
    final int channel;
    /** Next sequence number to give a fragment. */
    long next;
    /** Oldest fragment not acknowledged cumulatively; the window is [base, base + W). */
    long base;
    final UdpBuffer[] slotFrame;
    /** The sequence number a slot holds now: a late acknowledgement of its previous one must not release it. */
    final long[] slotSequence;
    final int[] slotOffset;
    final int[] slotLength;
    final long[] slotSentAt;
    final int[] slotRetries;
    final boolean[] slotAcked;
    /** Committed frames not yet wholly in the window, oldest first. */
    final UdpBuffer[] queue;
    int queueHead;
    int queued;
    /** When an acknowledgement last acknowledged something new: the retransmission timer runs from it. */
    long progressAt;
    /** One past the highest sequence number acknowledged, cumulatively or selectively: below it are holes. */
    long ackedAbove;
    /** The latest send time of any fragment acknowledged: fragments sent well before it were lost. */
    long deliveredSentAt = Long.MIN_VALUE;
    /**
     * How long before an acknowledged fragment one must have been sent to count as lost: grows when the peer reports
     * duplicates (the datagrams were reordered, not lost), shrinks back after long clean runs.
     */
    long reorderNanos;
    long reorderRaisedAt;
    int acksSinceDuplicate;
    /**
     * When the stream last went from everything acknowledged to waiting for an acknowledgement: a peer's silence
     * counts from the later of this and its last datagram, so the first send after a long quiet spell is not taken
     * for a silence as long as the spell.
     */
    long waitingSince;
    /** When an acknowledgement was last asked for. */
    long probedAt;
    /** Claimed or committed frames not yet acknowledged whole, and their bytes. */
    int frames;
    long bytes;

    /** Acknowledgements with progress, with no duplicate reported, after which a grown reorder window halves. */
    static final int REORDER_DECAY_ACKS = 1 << 16;

    UdpSendStream(int peer, int channel, int window, long reorderNanos) {
        this.peer = peer;
        this.channel = channel;
        this.reorderNanos = reorderNanos;
        slotFrame = new UdpBuffer[window];
        slotSequence = new long[window];
        slotOffset = new int[window];
        slotLength = new int[window];
        slotSentAt = new long[window];
        slotRetries = new int[window];
        slotAcked = new boolean[window];
        queue = new UdpBuffer[window];
    }

    /**
     * Counts an acknowledgement with progress and, at every {@value #REORDER_DECAY_ACKS}th since a duplicate, halves
     * the reorder window down to {@code floorNanos}; without a branch: C2 made the rare halving an uncommon trap, first
     * taken in a benchmark's timed pass (testam's section B on udp), where the deoptimisation and recompilation of the
     * acknowledgement's handling slowed a row by 30%.
     */
    void cleanAcknowledgement(long floorNanos) {
        final int acks = acksSinceDuplicate + 1;
        final int keep = (acks - REORDER_DECAY_ACKS) >> 31; // -1 below the count, 0 at it
        acksSinceDuplicate = acks & keep;
        final long halved = Math.max(floorNanos, reorderNanos / 2);
        reorderNanos = reorderNanos & keep | halved & ~(long) keep;
    }

    boolean unacknowledged() {
        return base != next || queued != 0;
    }
}
