package org.gexj.udp;

import org.gexj.spi.ConduitListener;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The receiving side's delivery of every stream from the peers, in order. Fragments that arrive before their turn,
 * or while the poll does not take their channel, are held in slots ({@link #hold}) and delivered when they are next
 * ({@link #drain}); a frame of several fragments is copied into one buffer ({@link #assemble}), and one reassembled
 * while the poll does not take its channel waits as the stream's ready frame ({@link #deliverHeld}). Handlers run from
 * {@link #deliver}.
 *
 * <p>Threads: every method is called by the polling thread with the {@link UdpTransportAgent}'s lock held (once),
 * which guards the streams, the pool and {@link #heldTotal}; {@link #deliver} releases it while the handler runs, so
 * that other threads send meanwhile and the handler may send and poll again. The stream stays marked delivering
 * meanwhile, so a nested poll does not deliver past it.
 */
final class UdpReassembler {
    private static final int HEADER = UdpTransportAgent.HEADER;

    private final ReentrantLock lock;
    private final UdpBufferPool pool;
    private final UdpCounters counters;
    private final UdpAckSender acks;
    private final int window;
    private final UdpReceiveStream[] receives;
    /** Fragments held in slots and reassembled frames ready, over every stream. */
    private int heldTotal;

    UdpReassembler(ReentrantLock lock, UdpBufferPool pool, UdpCounters counters, UdpAckSender acks, int window,
                   UdpReceiveStream[] receives) {
        this.lock = lock;
        this.pool = pool;
        this.counters = counters;
        this.acks = acks;
        this.window = window;
        this.receives = receives;
    }

    /** Some stream holds a fragment or a ready frame. */
    boolean holding() {
        return heldTotal > 0;
    }

    /** Keeps a fragment that is not next, or whose channel the poll does not take, in its slot. */
    void hold(UdpReceiveStream r, long sequence, UdpBuffer from, int frameLength, int offset, int length) {
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
    int drain(ConduitListener listener, UdpReceiveStream r, int mask, int budget) {
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
            acks.dueAck(r.peer, System.nanoTime(), false);
        }
        return delivered;
    }

    /** Copies a fragment into the frame being reassembled; delivers the frame when it is whole. */
    int assemble(ConduitListener listener, UdpReceiveStream r, int mask, UdpBuffer from, int at, int frameLength,
                 int offset, int length) {
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
    void deliver(ConduitListener listener, UdpReceiveStream r, UdpBuffer b, int offset, int length) {
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
    int deliverHeld(ConduitListener listener, int mask, int limit) {
        int delivered = 0;
        for (int i = 0; i < receives.length && delivered < limit && heldTotal > 0; i++) {
            final UdpReceiveStream r = receives[i];
            if ((mask & (1 << r.channel)) != 0 && (r.ready != null || r.held > 0)) {
                delivered += drain(listener, r, mask, limit - delivered);
            }
        }
        return delivered;
    }
}
