package org.gexj;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Each thread gets its own NBI events, also when threads take turns through the one-entry cache. */
class ThreadNbiEventsTest {
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void eachThreadKeepsItsOwnEventsThroughInterleavedCalls() throws InterruptedException {
        final ThreadNbiEvents nbi = new ThreadNbiEvents(null);
        final Event[] mine = nbi.get();
        assertEquals(Ec.COUNT, mine.length);
        assertSame(mine, nbi.get(), "the same thread twice");
        final AtomicReference<Event[]> first = new AtomicReference<>();
        final AtomicReference<Event[]> second = new AtomicReference<>();
        final Thread other = new Thread(() -> first.set(nbi.get()));
        other.start();
        other.join();
        assertNotSame(mine, first.get(), "another thread's events");
        assertSame(mine, nbi.get(), "back on this thread after the other one was cached");
        final Thread again = new Thread(() -> second.set(nbi.get()));
        again.start();
        again.join();
        assertNotSame(first.get(), second.get(), "a new thread is not handed a finished thread's events");
        assertNotSame(mine, second.get());
        for (Event e : mine) {
            assertNotNull(e);
        }
    }
}
