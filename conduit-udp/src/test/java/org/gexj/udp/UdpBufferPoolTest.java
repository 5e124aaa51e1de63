package org.gexj.udp;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UdpBufferPoolTest {
    private static final int LARGE = 200 * 1024; // a 256 KiB buffer: above the class kept without limit
    private static final int HUGE = (2 << 20) - 100; // a 2 MiB buffer

    /** A flood of large frames (testqueue's 128 KiB Longs at depth 64) takes its buffers back, allocating nothing. */
    @Test
    void largeBuffersWithinTheBudgetAreReused() {
        final UdpBufferPool pool = new UdpBufferPool(32L << 20);
        try {
            final Map<UdpBuffer, Boolean> first = new IdentityHashMap<>();
            final List<UdpBuffer> inFlight = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                inFlight.add(pool.take(LARGE));
            }
            inFlight.forEach(b -> first.put(b, true));
            final long held = pool.bytesHeld();
            assertEquals(64L * 256 * 1024, held);
            for (int round = 0; round < 10; round++) {
                inFlight.forEach(pool::give);
                inFlight.clear();
                for (int i = 0; i < 64; i++) {
                    final UdpBuffer b = pool.take(LARGE);
                    assertTrue(first.containsKey(b), "round " + round + ": buffer " + i + " was made anew");
                    inFlight.add(b);
                }
                assertEquals(held, pool.bytesHeld());
            }
        } finally {
            pool.close();
        }
    }

    /** Beyond the budget free large buffers are released, so one burst of huge Longs does not pin its memory. */
    @Test
    void largeBuffersBeyondTheBudgetAreFreed() {
        final long budget = 4L << 20;
        final UdpBufferPool pool = new UdpBufferPool(budget);
        try {
            final List<UdpBuffer> taken = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                taken.add(pool.take(LARGE));
            }
            final UdpBuffer small = pool.take(1000);
            taken.forEach(pool::give);
            assertEquals(budget + small.capacity(), pool.bytesHeld(), "kept: the budget and the buffer still in use");
            final UdpBuffer reused = pool.take(LARGE);
            assertTrue(taken.contains(reused), "a kept buffer is reused");
            assertEquals(budget + small.capacity(), pool.bytesHeld());
        } finally {
            pool.close();
        }
    }

    /**
     * Free buffers of a size no longer in use give way to the size in use: a flood of 2 MiB buffers after one of
     * 256 KiB buffers (testqueue's rows) reuses its own buffers instead of making and freeing one per frame.
     */
    @Test
    void theSizeInUseDisplacesFreeBuffersOfOtherSizes() {
        final long budget = 8L << 20;
        final UdpBufferPool pool = new UdpBufferPool(budget);
        try {
            final List<UdpBuffer> earlier = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                earlier.add(pool.take(LARGE));
            }
            earlier.forEach(pool::give); // the budget is now full of 256 KiB buffers
            final List<UdpBuffer> now = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                now.add(pool.take(HUGE));
            }
            now.forEach(pool::give);
            for (int round = 0; round < 5; round++) {
                for (int i = 0; i < 4; i++) {
                    assertTrue(now.contains(pool.take(HUGE)), "round " + round + ": a 2 MiB buffer made anew");
                }
                now.forEach(pool::give);
            }
            assertEquals(budget, pool.bytesHeld(), "four 2 MiB buffers fill the budget: the 256 KiB ones are gone");
        } finally {
            pool.close();
        }
    }

    /** Small buffers (datagrams, frames up to 128 KiB) are all kept, whatever the budget. */
    @Test
    void smallBuffersAreAlwaysKept() {
        final UdpBufferPool pool = new UdpBufferPool(0);
        try {
            final List<UdpBuffer> taken = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                taken.add(pool.take(65536 + 80));
            }
            final long held = pool.bytesHeld();
            taken.forEach(pool::give);
            assertEquals(held, pool.bytesHeld());
        } finally {
            pool.close();
        }
    }

    /**
     * Every buffer starts on a page (under a page: on its own size), whatever malloc's heap held before: where a
     * datagram started a few bytes before a page's end, the kernel's copy of it took 2.8 times as long.
     */
    @Test
    void buffersStartOnAPage() {
        final UdpBufferPool pool = new UdpBufferPool(32L << 20);
        try {
            final List<UdpBuffer> taken = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                taken.add(pool.take(1000 + 37L * i)); // 2 KiB class, between others
                taken.add(pool.take(3000 + 1000L * i)); // 4-64 KiB classes
                taken.add(pool.take(65507)); // a receive buffer at the default datagram size
            }
            for (UdpBuffer b : taken) {
                final long alignment = Math.min(b.capacity(), UdpBuffer.PAGE);
                assertEquals(0, b.buffer.addressOffset() % alignment,
                    "a buffer of " + b.capacity() + " bytes at " + b.buffer.addressOffset());
            }
        } finally {
            pool.close();
        }
    }
}
