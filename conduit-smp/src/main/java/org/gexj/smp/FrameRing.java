package org.gexj.smp;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.smp.wire.FrameRingDescriptor;

import java.nio.ByteBuffer;

import static org.gexj.smp.wire.FrameRingDescriptor.FRAME;
import static org.gexj.smp.wire.FrameRingDescriptor.HEADER_LENGTH;
import static org.gexj.smp.wire.FrameRingDescriptor.HEAD_CACHE_OFFSET;
import static org.gexj.smp.wire.FrameRingDescriptor.HEAD_OFFSET;
import static org.gexj.smp.wire.FrameRingDescriptor.LENGTH_OFFSET;
import static org.gexj.smp.wire.FrameRingDescriptor.PADDING;
import static org.gexj.smp.wire.FrameRingDescriptor.SALT_OFFSET;
import static org.gexj.smp.wire.FrameRingDescriptor.TAG_OFFSET;
import static org.gexj.smp.wire.FrameRingDescriptor.TAIL_OFFSET;
import static org.gexj.smp.wire.FrameRingDescriptor.TYPE_OFFSET;

/**
 * A many-to-one ring of variable-length frames in shared memory ({@link FrameRingDescriptor}): producers claim space
 * with a compare-and-set on the tail, write the frame in place and commit it by writing its tag; the one consumer reads
 * committed frames in claim order and publishes its head. Unlike Agrona's ring, the consumer never writes a record,
 * so a producer writes lines it does not have to take back from the consumer's cache.
 *
 * <p>Threads: {@link #tryClaim}, {@link #commit} and {@link #abort} from any thread of any process that maps the ring;
 * {@link #read} from one thread at a time of the owner. A claim must be committed or aborted, or the consumer stops
 * at it (as with Agrona's ring).
 */
final class FrameRing {
    /** What {@link #tryClaim} returns when the ring has no room now. */
    static final long INSUFFICIENT_CAPACITY = -1;
    /**
     * Records of a size that may always be in flight, window or not: the window is meant to bound many small frames,
     * while a few large ones still need to overlap (testam's 64 KiB Medium flood round trip took 6-10 us with a plain
     * 256 KiB window, 4.1-4.7 without).
     */
    static final int WINDOW_RECORDS = 16;
    /**
     * Records longer than this give their room back as soon as their handler returns, not at the end of the batch: a
     * window holds as few as {@link #WINDOW_RECORDS} large records, so a batch of them kept the producer waiting for
     * the whole batch. testam's Medium flood round trip over smp, where every handler replies with as much, 4 paired
     * runs: 4 KiB 0.28-1.37 us a message with the batch's release, 0.21-0.41 with this (GASNet 0.25); 16 KiB 0.84-3.63
     * against 0.63-1.58 (GASNet 0.62). Small records are released once a batch, a store fewer per frame.
     */
    static final int RELEASE_EACH_MIN = 1024;

    /** Claims {@link #primeWrapPaths} makes: enough for C1's profiling code to count thousands of wraps. */
    static final int PRIMING_CLAIMS = 50_000;
    private static final int PRIMING_CAPACITY = 4096;
    private static final FrameHandler NO_FRAME = (buffer, index, length) -> {
        throw new AssertionError("priming aborts every record");
    };

    /** Receives committed frames; the frame is valid only during the call. */
    @FunctionalInterface
    interface FrameHandler {
        void onFrame(AtomicBuffer buffer, int index, int length);
    }

    private final AtomicBuffer buffer;
    private final int capacity;
    private final int mask;
    private final int maxFrameLength;
    private final int window;
    private final int tail;
    private final int headCache;
    private final int head;
    private final long salt;

    /** Wraps a ring whose owner has {@link #initialise initialised} it, with no window but its capacity. */
    FrameRing(AtomicBuffer buffer) {
        this(buffer, Integer.MAX_VALUE);
    }

    /**
     * Wraps a ring whose owner has {@link #initialise initialised} it, for producers that stop at {@code window}
     * bytes ahead of the consumer.
     *
     * @param window bytes claimed and not yet consumed beyond which {@link #tryClaim} refuses a frame, unless the ring
     *               is empty or holds less than {@link #WINDOW_RECORDS} records of its size, &gt; 0
     */
    FrameRing(AtomicBuffer buffer, int window) {
        if (window <= 0) {
            throw new IllegalArgumentException("ring window " + window + " outside [1, " + Integer.MAX_VALUE + "]");
        }
        this.window = window;
        this.capacity = buffer.capacity() - FrameRingDescriptor.TRAILER_LENGTH;
        FrameRingDescriptor.checkCapacity(capacity);
        this.buffer = buffer;
        this.mask = capacity - 1;
        this.maxFrameLength = capacity / 8;
        this.tail = capacity + TAIL_OFFSET;
        this.headCache = capacity + HEAD_CACHE_OFFSET;
        this.head = capacity + HEAD_OFFSET;
        this.salt = buffer.getLongVolatile(capacity + SALT_OFFSET);
        if (salt >= 0) {
            throw new IllegalStateException("frame ring is not initialised (salt " + salt + ")");
        }
    }

    /**
     * The owner's first write to a new, zero-filled ring, before any peer maps it.
     *
     * @param salt random; its top bit is set here
     */
    static void initialise(AtomicBuffer buffer, long salt) {
        final int capacity = buffer.capacity() - FrameRingDescriptor.TRAILER_LENGTH;
        FrameRingDescriptor.checkCapacity(capacity);
        buffer.putLongVolatile(capacity + SALT_OFFSET, salt | Long.MIN_VALUE);
    }

    /**
     * Runs a private ring through {@link #PRIMING_CLAIMS} claims of lengths that do not divide its capacity, each
     * aborted, read in batches that do not always fit, so that the JIT's profile of {@link #tryClaim} and
     * {@link #read} has seen the wrap's padding record and a full ring before the conduit's first frame. Where the
     * first record that did not fit before a ring's end came after C2 had compiled them (a benchmark whose warm-up sent
     * one size), both trapped at that branch and ran interpreted until recompiled: the first Medium row of
     * {@code testam 20000 64 AB} took 1.3-2.9 us against 0.25. Aborted records only: the handler's call site in
     * {@link #read} keeps the conduit's own type profile.
     *
     * @return how many claims wrapped with a padding record (for tests)
     */
    static int primeWrapPaths() {
        final AtomicBuffer memory = new UnsafeBuffer(
            ByteBuffer.allocateDirect(PRIMING_CAPACITY + FrameRingDescriptor.TRAILER_LENGTH));
        initialise(memory, 1);
        final FrameRing ring = new FrameRing(memory, PRIMING_CAPACITY / 4); // a window, as the conduit's rings have
        long next = 0;
        int paddings = 0;
        for (int i = 0; i < PRIMING_CLAIMS; i++) {
            final int length = (i * 37) % (ring.maxFrameLength() + 1);
            final long position = ring.tryClaim(length);
            if (position == INSUFFICIENT_CAPACITY) {
                ring.read(NO_FRAME, Integer.MAX_VALUE);
                continue;
            }
            if (position != next) {
                paddings++;
            }
            ring.abort(position, length);
            next = position + FrameRingDescriptor.aligned(length + HEADER_LENGTH);
            if (i % 16 == 15) {
                ring.read(NO_FRAME, Integer.MAX_VALUE); // 16 claims may not fit: refusals are primed too
            }
        }
        return paddings;
    }

    AtomicBuffer buffer() {
        return buffer;
    }

    /** Largest frame {@link #tryClaim} accepts: an eighth of the capacity. */
    int maxFrameLength() {
        return maxFrameLength;
    }

    /**
     * Claims room for a frame of {@code length} bytes, if it fits both the free capacity and the window.
     *
     * @return the record's absolute position, which {@link #frameIndex}, {@link #commit} and {@link #abort} take, or
     *         {@link #INSUFFICIENT_CAPACITY}
     * @throws IllegalArgumentException if {@code length} is outside [0, {@link #maxFrameLength()}]
     */
    long tryClaim(int length) {
        if (length < 0 || length > maxFrameLength) {
            throw new IllegalArgumentException("frame length " + length + " outside [0, " + maxFrameLength + "]");
        }
        final int recordLength = length + HEADER_LENGTH;
        final int required = FrameRingDescriptor.aligned(recordLength);
        long headPosition = buffer.getLongVolatile(headCache);
        long tailPosition;
        int padding;
        do {
            tailPosition = buffer.getLongVolatile(tail);
            final int toEnd = capacity - ((int) tailPosition & mask);
            // a record never wraps: the rest of the buffer becomes padding and the record goes to the start
            padding = required > toEnd ? toEnd : 0;
            final int needed = padding + required;
            if (refused(needed, (int) (tailPosition - headPosition))) {
                headPosition = buffer.getLongVolatile(head);
                if (refused(needed, (int) (tailPosition - headPosition))) {
                    return INSUFFICIENT_CAPACITY;
                }
                buffer.putLongRelease(headCache, headPosition);
            }
        } while (!buffer.compareAndSetLong(tail, tailPosition, tailPosition + padding + required));
        if (padding != 0) {
            publish(tailPosition, padding, PADDING);
        }
        return tailPosition + padding;
    }

    /**
     * Whether {@code needed} more bytes do not fit beside {@code used} ones: beyond the capacity, or, while the ring
     * holds anything, beyond the window or {@link #WINDOW_RECORDS} records of this size, whichever is larger.
     */
    private boolean refused(int needed, int used) {
        return needed > capacity - used
            || (used > 0 && needed > Math.max(window, WINDOW_RECORDS * (long) needed) - used);
    }

    /** Where the frame of the record claimed at {@code position} starts in {@link #buffer()}. */
    int frameIndex(long position) {
        return ((int) position & mask) + HEADER_LENGTH;
    }

    /**
     * Publishes the frame of {@code length} bytes (as claimed) of the record claimed at {@code position}. The record's
     * header is written here, all of it: a consumer spinning on the record's tag reads its line, and each store to
     * that line between the claim and the commit would take it back once more.
     */
    void commit(long position, int length) {
        publish(position, length + HEADER_LENGTH, FRAME);
    }

    /** Gives back the record of a {@code length}-byte frame claimed at {@code position}: the consumer skips it. */
    void abort(long position, int length) {
        publish(position, length + HEADER_LENGTH, PADDING);
    }

    /** Writes a record's header, its tag last (the release the consumer's acquire load of the tag pairs with). */
    private void publish(long position, int recordLength, int type) {
        final int recordIndex = (int) position & mask;
        buffer.putInt(recordIndex + LENGTH_OFFSET, recordLength);
        buffer.putInt(recordIndex + TYPE_OFFSET, type);
        buffer.putLongRelease(recordIndex + TAG_OFFSET, FrameRingDescriptor.tag(position, salt));
    }

    /**
     * Hands committed frames to {@code handler} in claim order, up to {@code limit} of them, stopping at the first
     * uncommitted record. The consumed room is given back once the batch is done, also if a handler throws, and after
     * each record longer than {@link #RELEASE_EACH_MIN}.
     *
     * <p>One loop across the end of the buffer: a padding record's length takes the position to the start. Reading
     * the part before the end and the part after as two loops made reaching the end an exit of the first that the
     * JIT's profile rarely saw: its loop predicate failed in the first timed flood of a benchmark (an uncommon trap
     * and a recompilation, 0.4-1.6 us per message instead of 0.05 for a row).
     *
     * @return the number of frames handled
     */
    int read(FrameHandler handler, int limit) {
        final long headPosition = buffer.getLong(head);
        long position = headPosition;
        long released = headPosition;
        int frames = 0;
        try {
            while (frames < limit) {
                final int recordIndex = (int) position & mask;
                if (buffer.getLongVolatile(recordIndex + TAG_OFFSET) != FrameRingDescriptor.tag(position, salt)) {
                    break;
                }
                final int recordLength = buffer.getInt(recordIndex + LENGTH_OFFSET);
                final int type = buffer.getInt(recordIndex + TYPE_OFFSET);
                position += FrameRingDescriptor.aligned(recordLength);
                if (type == FRAME) {
                    frames++;
                    handler.onFrame(buffer, recordIndex + HEADER_LENGTH, recordLength - HEADER_LENGTH);
                    if (recordLength > RELEASE_EACH_MIN) {
                        buffer.putLongRelease(head, position);
                        released = position;
                    }
                }
            }
        } finally {
            if (position != released) {
                buffer.putLongRelease(head, position);
            }
        }
        return frames;
    }

    /** True if the record at the head is committed (possibly as padding): a read would consume something. */
    boolean ready() {
        final long headPosition = buffer.getLong(head);
        return buffer.getLongVolatile(((int) headPosition & mask) + TAG_OFFSET)
            == FrameRingDescriptor.tag(headPosition, salt);
    }

    /** Bytes claimed and not yet consumed. */
    int size() {
        return (int) (buffer.getLongVolatile(tail) - buffer.getLongVolatile(head));
    }
}
