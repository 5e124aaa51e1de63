package org.gexj.udp;

/**
 * The reliable stream of one channel from one peer to this rank, receiving side: fragments are delivered in sequence
 * order; those that arrive early, or while the poll does not take their channel, are held in slots until their turn;
 * a frame of several fragments is reassembled in one buffer.
 */
final class UdpReceiveStream {
    final int peer;
    final int channel;
    /** Every fragment before it has been delivered (or copied into {@link #assembly}); reported as acknowledged. */
    long next;
    /** Held fragments, at sequence % W. */
    final UdpBuffer[] slot;
    final long[] slotSequence;
    final int[] slotFrameLength;
    final int[] slotFragmentOffset;
    final int[] slotLength;
    int held;
    /** The frame being reassembled, where in its buffer it starts, and how many of its bytes are in. */
    UdpBuffer assembly;
    int assemblyBase;
    int assembled;
    /** A reassembled frame waiting for a poll that takes its channel. */
    UdpBuffer ready;
    int readyBase;
    int readyLength;
    /** A frame of this stream is being delivered: a poll from inside its handler must not deliver past it. */
    boolean delivering;

    UdpReceiveStream(int peer, int channel, int window) {
        this.peer = peer;
        this.channel = channel;
        slot = new UdpBuffer[window];
        slotSequence = new long[window];
        slotFrameLength = new int[window];
        slotFragmentOffset = new int[window];
        slotLength = new int[window];
    }

    boolean holds(long sequence) {
        final int at = (int) (sequence % slot.length);
        return slot[at] != null && slotSequence[at] == sequence;
    }
}
