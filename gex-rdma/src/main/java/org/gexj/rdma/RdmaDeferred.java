package org.gexj.rdma;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * What a poll of one channel took from the completion queue but may not deliver (a request frame or a remote write
 * during a poll of the reply channel alone, which must not start a request handler): copied here, delivered first
 * by the next poll that includes its channel, in arrival order per kind. Frames are copied so that the receive
 * buffer they arrived in can be reposted. Bounded by the credits: a frame's credits are returned only when it is
 * delivered.
 *
 * <p>Also the RMA completions reported at a later poll: those of a poll of the request channel alone, of a chunk that
 * failed in the provider, and of an operation with nothing to move (started by any thread).
 *
 * <p>Threads: frames and remote writes are used by the poller alone (the thread in {@code poll}, one at a time);
 * completions are pushed by any thread and popped by the poller, both under the conduit's lock, and only
 * {@link #mayHaveCompletion()} is read without it.
 */
final class RdmaDeferred {
    private static final int RECORD_HEADER = 12;

    private final int frameBytes;
    private UnsafeBuffer frames;
    private int frameHead;
    private int frameTail;
    private int framesWaiting;
    private final PairRing writes = new PairRing();
    private final PairRing completions = new PairRing();
    /** The completions' count, written under the conduit's lock, read without it by {@link #mayHaveCompletion()}. */
    private volatile int completionsWaiting;

    /** @param frameBytes the most frame bytes (credits) that can be outstanding toward this rank */
    RdmaDeferred(int frameBytes) {
        this.frameBytes = frameBytes;
    }

    /** Poller only: no frame and no remote write waits (completions aside, see {@link #mayHaveCompletion()}). */
    boolean isEmpty() {
        return framesWaiting == 0 && writes.count == 0;
    }

    /** Copies a frame of {@code channel} from {@code source}; the store is made on first use. */
    void deferFrame(int channel, int source, DirectBuffer buffer, int offset, int length) {
        if (frames == null) {
            frames = new UnsafeBuffer(ByteBuffer.allocateDirect(frameBytes));
        }
        final int record = RECORD_HEADER + length;
        if (frameTail + record > frames.capacity()) {
            // move what waits to the front: nothing else refers into the store (frames are delivered from copies)
            final int live = frameTail - frameHead;
            if (live + record > frames.capacity()) {
                throw new IllegalStateException("RDMA engine: more deferred frame bytes than the credits allow ("
                    + frames.capacity() + ")");
            }
            frames.putBytes(0, frames, frameHead, live);
            frameHead = 0;
            frameTail = live;
        }
        frames.putInt(frameTail, length);
        frames.putInt(frameTail + 4, channel);
        frames.putInt(frameTail + 8, source);
        frames.putBytes(frameTail + RECORD_HEADER, buffer, offset, length);
        frameTail += record;
        framesWaiting++;
    }

    /** Channel of the oldest deferred frame, or -1. */
    int nextFrameChannel() {
        return framesWaiting == 0 ? -1 : frames.getInt(frameHead + 4);
    }

    int nextFrameSource() {
        return frames.getInt(frameHead + 8);
    }

    int nextFrameLength() {
        return frames.getInt(frameHead);
    }

    int nextFrameOffset() {
        return frameHead + RECORD_HEADER;
    }

    DirectBuffer frameBuffer() {
        return frames;
    }

    void popFrame() {
        frameHead += RECORD_HEADER + frames.getInt(frameHead);
        if (--framesWaiting == 0) {
            frameHead = 0;
            frameTail = 0;
        }
    }

    void deferWrite(int source, long immediate) {
        writes.push(source, immediate);
    }

    boolean hasWrite() {
        return writes.count > 0;
    }

    int writeSource() {
        return (int) writes.first();
    }

    long writeImmediate() {
        return writes.second();
    }

    void popWrite() {
        writes.pop();
    }

    /** Under the conduit's lock, from any thread. */
    void deferCompletion(long operation, int status) {
        completions.push(operation, status);
        completionsWaiting = completions.count;
    }

    /**
     * Without the lock: whether a completion may wait. One pushed before this read is seen; one pushed after it, by
     * the next read. Take the lock and {@link #hasCompletion()} to act on it.
     */
    boolean mayHaveCompletion() {
        return completionsWaiting > 0;
    }

    /** Under the conduit's lock, as are the completion's operation, status and pop. */
    boolean hasCompletion() {
        return completions.count > 0;
    }

    long completionOperation() {
        return completions.first();
    }

    int completionStatus() {
        return (int) completions.second();
    }

    void popCompletion() {
        completions.pop();
        completionsWaiting = completions.count;
    }

    /** A FIFO of (long, long) pairs that grows when full (rarely: only while deferring). */
    private static final class PairRing {
        private long[] ring = new long[128];
        private int head;
        private int count;

        void push(long a, long b) {
            final int pairs = ring.length / 2;
            if (count == pairs) {
                final long[] grown = new long[ring.length * 2];
                for (int i = 0; i < count; i++) {
                    grown[2 * i] = ring[2 * ((head + i) % pairs)];
                    grown[2 * i + 1] = ring[2 * ((head + i) % pairs) + 1];
                }
                ring = grown;
                head = 0;
            }
            final int at = (head + count) % (ring.length / 2);
            ring[2 * at] = a;
            ring[2 * at + 1] = b;
            count++;
        }

        long first() {
            return ring[2 * head];
        }

        long second() {
            return ring[2 * head + 1];
        }

        void pop() {
            head = (head + 1) % (ring.length / 2);
            count--;
        }
    }
}
