package org.gexj;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EventTest {
    @Test
    void anEventIsDoneWhenEverySubOperationCompleted() {
        final Event e = new Event(null, null);
        assertTrue(e.test());
        e.begin(3);
        assertFalse(e.test());
        e.complete(2);
        assertFalse(e.test());
        e.complete(1);
        assertTrue(e.test());
        assertTrue(e.test(), "a library event is never consumed");
        assertThrows(IllegalStateException.class, () -> e.complete(1));
    }

    @Test
    void doneIsCompleteAndImmutable() throws Exception {
        assertTrue(Event.DONE.test());
        Event.DONE.await();
        Event.DONE.toFuture().get();
        assertThrows(IllegalStateException.class, () -> Event.DONE.begin(1));
        assertTrue(Event.DONE.test());
        assertThrows(IllegalStateException.class, () -> Lc.NOW.setLastEvent(Event.DONE));
        assertThrows(IllegalStateException.class, () -> Lc.GROUP.setLastEvent(Event.DONE));
    }

    @Test
    void aPooledEventIsConsumedByItsSuccessfulTestAndReusedWithoutAllocating() {
        final EventPool pool = new EventPool(null);
        final Event e = pool.take();
        e.begin(1);
        assertFalse(e.test());
        assertFalse(e.test(), "an unsuccessful test consumes nothing");
        e.complete(1);
        assertTrue(e.test());
        assertThrows(IllegalStateException.class, e::test, "consumed");
        assertSame(e, pool.take(), "the consumed event is reused");
        assertTrue(e.test());
    }

    @Test
    void aFailedOperationCompletesItsEventWithTheFailure() {
        final EventPool pool = new EventPool(null);
        final Event e = pool.take();
        e.begin(2);
        final RuntimeException cause = new RuntimeException("arena closed");
        e.fail(1, cause);
        assertFalse(e.test());
        e.complete(1);
        assertSame(cause, e.failure());
        assertTrue(e.test());
        final Event again = pool.take();
        assertSame(e, again);
        assertNull(again.failure(), "a reused event starts without failure");

        final Event reusable = new Event(null, null);
        reusable.begin(1);
        reusable.fail(1, cause);
        final GexException thrown = assertThrows(GexException.class, reusable::await);
        assertSame(cause, thrown.getCause());
        reusable.await(); // reported once
        assertEquals(0, reusable.pending());
    }

    @Test
    void anEventsSoleOperationCompletesItWithOrWithoutAFailure() {
        final EventPool pool = new EventPool(null);
        final Event e = pool.take();
        e.beginUnseen(1);
        assertFalse(e.test());
        e.completeSole(null);
        assertTrue(e.test());
        assertThrows(IllegalStateException.class, () -> e.completeSole(null), "nothing pending");

        final Event failed = pool.take();
        assertSame(e, failed);
        failed.beginUnseen(1);
        final RuntimeException cause = new RuntimeException("peer failed");
        failed.completeSole(cause);
        assertSame(cause, failed.failure());
        assertTrue(failed.test());

        final Event two = pool.take();
        two.beginUnseen(2);
        final IllegalStateException notSole = assertThrows(IllegalStateException.class, () -> two.completeSole(null));
        assertTrue(notSole.getMessage().contains("2 pending"), notSole.getMessage());
        assertEquals(2, two.pending(), "a refused completion changes nothing");
    }

    @Test
    void categoryMasksAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> Ec.checkMask(0));
        assertThrows(IllegalArgumentException.class, () -> Ec.checkMask(16));
        assertThrows(IllegalArgumentException.class, () -> Ec.index(Ec.ALL));
        assertThrows(IllegalArgumentException.class, () -> Flags.check(2));
    }
}
