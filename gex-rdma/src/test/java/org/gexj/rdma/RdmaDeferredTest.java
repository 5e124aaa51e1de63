package org.gexj.rdma;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RdmaDeferredTest {
    /** The per-frame bookkeeping RdmaDeferred stores before each frame's bytes (length, channel, source). */
    private static final int RECORD_HEADER = 12;
    private static final int CAPACITY = 4096;

    private record Frame(int channel, int source, byte[] bytes) {
    }

    /** A receive buffer with the frame's bytes at {@code at}, garbage around them (the copy must take only those). */
    private static UnsafeBuffer arrived(byte[] frame, int at, SplittableRandom random) {
        final byte[] memory = new byte[at + frame.length + 32];
        random.nextBytes(memory);
        System.arraycopy(frame, 0, memory, at, frame.length);
        return new UnsafeBuffer(memory);
    }

    private static byte[] bytes(SplittableRandom random, int length) {
        final byte[] b = new byte[length];
        random.nextBytes(b);
        return b;
    }

    private static void assertNext(RdmaDeferred d, Frame expected, String where) {
        assertEquals(expected.channel(), d.nextFrameChannel(), where + ": channel");
        assertEquals(expected.source(), d.nextFrameSource(), where + ": source");
        assertEquals(expected.bytes().length, d.nextFrameLength(), where + ": length");
        final DirectBuffer b = d.frameBuffer();
        final byte[] copy = new byte[d.nextFrameLength()];
        b.getBytes(d.nextFrameOffset(), copy);
        assertArrayEquals(expected.bytes(), copy, where + ": bytes");
    }

    @Test
    void framesComeOutInOrderIntactAcrossManyFillAndDrainCycles() {
        final RdmaDeferred d = new RdmaDeferred(CAPACITY);
        assertTrue(d.isEmpty());
        assertEquals(-1, d.nextFrameChannel(), "no frame yet");
        final SplittableRandom random = new SplittableRandom(0x0F1DEFL);
        long framesSeen = 0;
        for (int cycle = 0; cycle < 2000; cycle++) {
            // fill with frames of random sizes (0..600 bytes) while they fit, from random places of receive buffers
            final ArrayDeque<Frame> model = new ArrayDeque<>();
            int used = 0;
            while (true) {
                final int length = random.nextInt(cycle % 10 == 0 ? 1 : 601); // every tenth cycle: empty frames
                if (used + RECORD_HEADER + length > CAPACITY) {
                    break;
                }
                final Frame f = new Frame(random.nextInt(2), random.nextInt(1 << 20), bytes(random, length));
                final int at = random.nextInt(64);
                d.deferFrame(f.channel(), f.source(), arrived(f.bytes(), at, random), at, length);
                model.add(f);
                used += RECORD_HEADER + length;
                assertFalse(d.isEmpty());
            }
            int i = 0;
            while (!model.isEmpty()) {
                assertNext(d, model.poll(), "cycle " + cycle + " frame " + i++);
                d.popFrame();
                framesSeen++;
            }
            assertTrue(d.isEmpty(), "cycle " + cycle + " drained");
            assertEquals(-1, d.nextFrameChannel(), "cycle " + cycle + " drained");
        }
        assertTrue(framesSeen > 2000 * 10, "frames per cycle: " + framesSeen / 2000.0);
    }

    @Test
    void aFullStoreRefusesMoreAndStartsOverOnceEmpty() {
        final RdmaDeferred d = new RdmaDeferred(CAPACITY);
        final SplittableRandom random = new SplittableRandom(7);
        // four records of exactly a quarter each fill the store to the byte
        final int length = CAPACITY / 4 - RECORD_HEADER;
        final Frame[] frames = new Frame[4];
        for (int i = 0; i < 4; i++) {
            frames[i] = new Frame(i & 1, 100 + i, bytes(random, length));
            d.deferFrame(frames[i].channel(), frames[i].source(), new UnsafeBuffer(frames[i].bytes()), 0, length);
        }
        // one byte more than the credits allow is a broken peer or conduit: refused, and nothing lost
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> d.deferFrame(0, 1, new UnsafeBuffer(new byte[1]), 0, 1));
        assertTrue(e.getMessage().contains(Integer.toString(CAPACITY)), e.getMessage());
        for (int i = 0; i < 4; i++) {
            assertNext(d, frames[i], "frame " + i);
            d.popFrame();
        }
        assertTrue(d.isEmpty());
        // emptied: the space is reused from its start, and a whole store's worth fits again
        final Frame big = new Frame(1, 9, bytes(random, CAPACITY - RECORD_HEADER));
        d.deferFrame(big.channel(), big.source(), new UnsafeBuffer(big.bytes()), 0, big.bytes().length);
        assertEquals(RECORD_HEADER, d.nextFrameOffset(), "reused from the start");
        assertNext(d, big, "whole-store frame");
        d.popFrame();
        assertTrue(d.isEmpty());
    }

    @Test
    void framesOfBothChannelsKeepOneArrivalOrder() {
        // the poller delivers the oldest frame first whatever its channel; channels do not overtake each other here
        final RdmaDeferred d = new RdmaDeferred(CAPACITY);
        final int[] channels = {1, 0, 0, 1, 1, 0};
        for (int i = 0; i < channels.length; i++) {
            d.deferFrame(channels[i], i, new UnsafeBuffer(new byte[] {(byte) i}), 0, 1);
        }
        for (int i = 0; i < channels.length; i++) {
            assertNext(d, new Frame(channels[i], i, new byte[] {(byte) i}), "frame " + i);
            d.popFrame();
        }
        assertTrue(d.isEmpty());
    }

    @Test
    void writesComeOutInOrderThroughGrowthAndWrapAround() {
        final RdmaDeferred d = new RdmaDeferred(CAPACITY);
        final SplittableRandom random = new SplittableRandom(42);
        final ArrayDeque<long[]> model = new ArrayDeque<>();
        // bursts of pushes and pops: the ring wraps, and grows (past 64, 128, ... pairs) while its head is mid-array
        for (int step = 0; step < 20_000; step++) {
            final boolean push = model.isEmpty() || random.nextInt(100) < (step < 10_000 ? 60 : 40);
            if (push) {
                final int source = random.nextInt();
                final long immediate = random.nextLong();
                d.deferWrite(source, immediate);
                model.add(new long[] {source, immediate});
            } else {
                final long[] expected = model.poll();
                assertTrue(d.hasWrite(), "step " + step);
                assertEquals((int) expected[0], d.writeSource(), "step " + step + ": source");
                assertEquals(expected[1], d.writeImmediate(), "step " + step + ": immediate");
                d.popWrite();
            }
            assertEquals(!model.isEmpty(), d.hasWrite(), "step " + step);
        }
        while (!model.isEmpty()) {
            final long[] expected = model.poll();
            assertEquals((int) expected[0], d.writeSource());
            assertEquals(expected[1], d.writeImmediate());
            d.popWrite();
        }
        assertFalse(d.hasWrite());
        assertTrue(d.isEmpty());
    }

    @Test
    void completionsComeOutInOrderPastSixtyFourWithTheHeadMidRing() {
        final RdmaDeferred d = new RdmaDeferred(CAPACITY);
        // advance the head, then outgrow 64 pairs while it is not at 0: growth must unroll the ring in order
        for (int i = 0; i < 40; i++) {
            d.deferCompletion(-i, i);
        }
        for (int i = 0; i < 40; i++) {
            assertEquals(-i, d.completionOperation());
            d.popCompletion();
        }
        final int n = 1000;
        for (int i = 0; i < n; i++) {
            d.deferCompletion(0x1_0000_0000L * i + i, i % 3 == 0 ? -i : i); // statuses of either sign
        }
        for (int i = 0; i < n; i++) {
            assertTrue(d.hasCompletion(), "completion " + i);
            assertEquals(0x1_0000_0000L * i + i, d.completionOperation(), "completion " + i);
            assertEquals(i % 3 == 0 ? -i : i, d.completionStatus(), "completion " + i);
            d.popCompletion();
        }
        assertFalse(d.hasCompletion());
        assertTrue(d.isEmpty());
    }

    @Test
    void isEmptyCoversFramesAndWritesAndCompletionsAreSeenApart() {
        // frames and writes are the poller's alone; completions come from any thread under the conduit's lock
        final RdmaDeferred d = new RdmaDeferred(CAPACITY);
        d.deferWrite(1, 2);
        d.deferCompletion(3, 4);
        d.deferFrame(0, 5, new UnsafeBuffer(new byte[3]), 0, 3);
        final boolean[] empty = new boolean[3];
        final boolean[] completion = new boolean[3];
        d.popFrame();
        empty[0] = d.isEmpty();
        completion[0] = d.mayHaveCompletion();
        d.popWrite();
        empty[1] = d.isEmpty();
        completion[1] = d.mayHaveCompletion();
        d.popCompletion();
        empty[2] = d.isEmpty();
        completion[2] = d.mayHaveCompletion();
        assertEquals(Arrays.toString(new boolean[] {false, true, true}), Arrays.toString(empty));
        assertEquals(Arrays.toString(new boolean[] {true, true, false}), Arrays.toString(completion));
    }

    /**
     * A store that never empties (a handler's nested polls defer while earlier frames are delivered) keeps accepting
     * frames as long as those waiting fit: the waiting bytes move to the front when the end is reached.
     */
    @Test
    void aStoreThatNeverEmptiesKeepsAcceptingWhatFits() {
        final RdmaDeferred d = new RdmaDeferred(4096);
        final byte[] frame = new byte[1012]; // a 1024-byte record: at most 2 wait at once below
        final UnsafeBuffer source = new UnsafeBuffer(frame);
        int deferred = 0;
        int popped = 0;
        Arrays.fill(frame, (byte) deferred);
        d.deferFrame(0, 1, source, 0, frame.length);
        deferred++;
        for (int i = 0; i < 100; i++) {
            Arrays.fill(frame, (byte) deferred);
            d.deferFrame(1, 2, source, 0, frame.length);
            deferred++;
            assertEquals((byte) popped, d.frameBuffer().getByte(d.nextFrameOffset()), "frame " + popped);
            assertEquals((byte) popped, d.frameBuffer().getByte(d.nextFrameOffset() + frame.length - 1));
            d.popFrame();
            popped++;
        }
        assertEquals(deferred - 1, popped);
        assertFalse(d.isEmpty());
    }
}
