package org.gexj.testkit.emu;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The credits of one path: every item is held by one taker at a time, and none is lost, however threads interleave. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EmuPoolTest {
    @Test
    void takesUpToTheCreditsAndFindsClaimedItemsByHandle() {
        final EmuPool pool = new EmuPool(3, 64);
        final EmuItem a = pool.take();
        final EmuItem b = pool.take();
        final EmuItem c = pool.take();
        assertNull(pool.take(), "three credits");
        assertEquals(3, pool.inUse());
        assertSame(b, pool.claimed(b.index));
        assertEquals(64, a.buffer.capacity());
        pool.give(b);
        assertThrows(IllegalStateException.class, () -> pool.claimed(b.index), "given back");
        assertThrows(IllegalStateException.class, () -> pool.claimed(7), "no such handle");
        assertSame(b, pool.take());
        pool.give(a);
        pool.give(b);
        pool.give(c);
        assertEquals(0, pool.inUse());
        assertNull(new EmuPool(2, 0).take().buffer, "RMA items have no buffer");
    }

    /**
     * More threads than cores take and give back two credits as fast as they can, so that threads are descheduled
     * between reading the pool and updating it; a lost item or one held twice shows.
     */
    @Test
    void concurrentTakersNeverShareAnItemAndLoseNone() throws InterruptedException {
        final int credits = 2;
        final EmuPool pool = new EmuPool(credits, 0);
        final AtomicIntegerArray holders = new AtomicIntegerArray(credits);
        final AtomicReference<String> failure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            threads.add(Thread.ofPlatform().daemon().start(() -> {
                for (int i = 0; i < 200_000 && failure.get() == null; i++) {
                    final EmuItem item = pool.take();
                    if (item == null) {
                        continue;
                    }
                    if (holders.incrementAndGet(item.index) != 1) {
                        failure.set("item " + item.index + " taken by two threads at once");
                    }
                    holders.decrementAndGet(item.index);
                    pool.give(item);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertNull(failure.get());
        assertEquals(0, pool.inUse(), "every credit is back");
        assertNotNull(pool.take());
        assertNotNull(pool.take());
        assertNull(pool.take());
    }
}
