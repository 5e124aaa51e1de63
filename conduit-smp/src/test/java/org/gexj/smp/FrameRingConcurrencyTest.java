package org.gexj.smp;

import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.smp.wire.FrameRingDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Producers on several threads racing for a small ring (many wraps, full-ring back-pressure, aborts) while one
 * consumer reads: every committed frame arrives once, intact, in each producer's order; no aborted one arrives.
 */
class FrameRingConcurrencyTest {
    private static final int PRODUCERS = 3;
    private static final int FRAMES = 60_000;

    /** Frame: producer (int), sequence (int), then bytes derived from both; aborted claims are filled the same way. */
    private static void fill(UnsafeBuffer b, int at, int producer, int seq, int length) {
        b.putInt(at, producer);
        b.putInt(at + 4, seq);
        for (int i = 8; i < length; i++) {
            b.putByte(at + i, (byte) (producer * 17 + seq * 31 + i));
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void everyCommittedFrameArrivesOnceIntactInProducerOrder() throws Exception {
        final UnsafeBuffer buffer = FrameRingProperties.memory(4096);
        FrameRing.initialise(buffer, 42);
        final FrameRing ring = new FrameRing(buffer);
        final int max = ring.maxFrameLength();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            final int producer = p;
            final Thread t = new Thread(() -> {
                final SplittableRandom random = new SplittableRandom(producer);
                final FrameRing mine = new FrameRing(buffer); // each process maps the ring on its own
                int seq = 0;
                while (seq < FRAMES && failure.get() == null) {
                    final int length = 8 + random.nextInt(max - 7);
                    final long position = mine.tryClaim(length);
                    if (position == FrameRing.INSUFFICIENT_CAPACITY) {
                        Thread.onSpinWait();
                        continue;
                    }
                    final boolean abort = random.nextInt(10) == 0;
                    fill(buffer, mine.frameIndex(position), producer, abort ? -1 : seq, length);
                    if (abort) {
                        mine.abort(position, length);
                    } else {
                        mine.commit(position, length);
                        seq++;
                    }
                }
            }, "producer-" + p);
            producers.add(t);
            t.start();
        }
        final int[] next = new int[PRODUCERS];
        final int[] received = {0};
        final FrameRing.FrameHandler check = (b, index, length) -> {
            final int producer = b.getInt(index);
            final int seq = b.getInt(index + 4);
            assertTrue(producer >= 0 && producer < PRODUCERS, "producer " + producer);
            assertEquals(next[producer], seq, "sequence of producer " + producer);
            for (int i = 8; i < length; i++) {
                if (b.getByte(index + i) != (byte) (producer * 17 + seq * 31 + i)) {
                    throw new AssertionError("byte " + i + " of frame " + seq + " from producer " + producer);
                }
            }
            next[producer]++;
            received[0]++;
        };
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(50);
        while (received[0] < PRODUCERS * FRAMES) {
            try {
                if (ring.read(check, 100) == 0) {
                    Thread.onSpinWait();
                }
            } catch (Throwable t) {
                failure.set(t);
                throw t;
            }
            assertTrue(System.nanoTime() < deadline, "received " + received[0] + " of " + PRODUCERS * FRAMES);
        }
        for (Thread t : producers) {
            t.join();
        }
        assertNull(failure.get());
        assertEquals(0, ring.read(check, 100), "nothing but aborted records left");
        assertEquals(0, ring.size(), "all room given back");
    }

    @Test
    void rejectsBadLengthsAndUninitialisedMemory() {
        final UnsafeBuffer buffer = FrameRingProperties.memory(4096);
        final IllegalStateException uninitialised = assertThrows(IllegalStateException.class,
            () -> new FrameRing(buffer));
        assertTrue(uninitialised.getMessage().contains("not initialised"), uninitialised.getMessage());
        FrameRing.initialise(buffer, 7);
        final FrameRing ring = new FrameRing(buffer);
        final IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
            () -> ring.tryClaim(ring.maxFrameLength() + 1));
        assertEquals("frame length 513 outside [0, 512]", tooLong.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ring.tryClaim(-1));
        final IllegalArgumentException notPowerOfTwo = assertThrows(IllegalArgumentException.class,
            () -> FrameRing.initialise(new UnsafeBuffer(new byte[3000 + FrameRingDescriptor.TRAILER_LENGTH]), 1));
        assertEquals("ring capacity 3000 is not a power of two >= 128", notPowerOfTwo.getMessage());
    }

    /** A full ring refuses, nothing is overwritten, and reading gives the room back. */
    @Test
    void fullRingRefusesUntilRead() {
        final UnsafeBuffer buffer = FrameRingProperties.memory(1024);
        FrameRing.initialise(buffer, 3);
        final FrameRing ring = new FrameRing(buffer);
        int claimed = 0;
        long position;
        while ((position = ring.tryClaim(100)) != FrameRing.INSUFFICIENT_CAPACITY) {
            buffer.putInt(ring.frameIndex(position), claimed++);
            ring.commit(position, 100);
        }
        assertEquals(1024 / 128, claimed, "100-byte frames take 128 bytes each");
        final int[] seen = {0};
        assertEquals(claimed, ring.read((b, index, length) -> assertEquals(seen[0]++, b.getInt(index)), 100));
        assertTrue(ring.tryClaim(100) != FrameRing.INSUFFICIENT_CAPACITY);
    }

    /**
     * A producer of small frames stops at the window, not at the capacity, and goes on once the reader is below it; a
     * large frame goes on while fewer than {@link FrameRing#WINDOW_RECORDS} records of its size are in flight; every
     * frame claimed is read, in order.
     */
    @Test
    void windowStopsSmallFramesUntilReadAndLetsLargeOnesOverlap() {
        final UnsafeBuffer buffer = FrameRingProperties.memory(8192);
        FrameRing.initialise(buffer, 5);
        final FrameRing ring = new FrameRing(buffer, 2048);
        final int small = FrameRingDescriptor.aligned(8 + FrameRingDescriptor.HEADER_LENGTH);
        assertTrue(FrameRing.WINDOW_RECORDS * small < 2048, "the window, not the records, bounds these");
        final List<Integer> sent = new ArrayList<>();
        while (claimAndCommit(ring, buffer, 8, sent)) {
            assertTrue(ring.size() <= 2048, "past the window: " + ring.size());
        }
        assertEquals(2048 / small, sent.size());
        final List<Integer> read = new ArrayList<>();
        assertEquals(1, ring.read((b, index, length) -> read.add(b.getInt(index)), 1));
        assertTrue(claimAndCommit(ring, buffer, 8, sent), "room below the window again");
        assertFalse(claimAndCommit(ring, buffer, 8, sent));
        assertTrue(claimAndCommit(ring, buffer, 1000, sent), "fewer than 16 records of 1 KiB in flight");
        assertTrue(ring.size() > 2048);
        assertFalse(claimAndCommit(ring, buffer, 8, sent), "small frames wait while the ring is past the window");
        assertEquals(sent.size() - 1, ring.read((b, index, length) -> read.add(b.getInt(index)), 100));
        assertEquals(0, ring.size());
        assertEquals(sent, read);
        assertThrows(IllegalArgumentException.class, () -> new FrameRing(buffer, 0));
    }

    /**
     * A record longer than {@link FrameRing#RELEASE_EACH_MIN} gives its room back once its handler returned, within the
     * batch, so that a producer held by the window goes on; small records only at the batch's end.
     */
    @Test
    void largeRecordsAreReleasedOneByOneAndSmallOnesByTheBatch() {
        final UnsafeBuffer buffer = FrameRingProperties.memory(64 << 10);
        FrameRing.initialise(buffer, 9);
        final FrameRing ring = new FrameRing(buffer);
        final List<Integer> sent = new ArrayList<>();
        final int large = FrameRing.RELEASE_EACH_MIN + 1;
        for (int i = 0; i < 3; i++) {
            assertTrue(claimAndCommit(ring, buffer, large, sent));
        }
        final int largeRecord = FrameRingDescriptor.aligned(large + FrameRingDescriptor.HEADER_LENGTH);
        final List<Integer> sizes = new ArrayList<>();
        assertEquals(3, ring.read((b, index, length) -> sizes.add(ring.size()), 10));
        assertEquals(List.of(3 * largeRecord, 2 * largeRecord, largeRecord), sizes,
            "in each handler, the records before it are given back");
        assertEquals(0, ring.size());
        for (int i = 0; i < 3; i++) {
            assertTrue(claimAndCommit(ring, buffer, 8, sent));
        }
        final int smallRecord = FrameRingDescriptor.aligned(8 + FrameRingDescriptor.HEADER_LENGTH);
        sizes.clear();
        assertEquals(3, ring.read((b, index, length) -> sizes.add(ring.size()), 10));
        assertEquals(List.of(3 * smallRecord, 3 * smallRecord, 3 * smallRecord), sizes, "given back at the end");
        assertEquals(0, ring.size());
    }

    private static boolean claimAndCommit(FrameRing ring, UnsafeBuffer buffer, int length, List<Integer> sent) {
        final long position = ring.tryClaim(length);
        if (position == FrameRing.INSUFFICIENT_CAPACITY) {
            return false;
        }
        buffer.putInt(ring.frameIndex(position), sent.size());
        ring.commit(position, length);
        sent.add(sent.size());
        return true;
    }
}
