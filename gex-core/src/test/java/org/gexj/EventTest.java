package org.gexj;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EventTest {
    @Test
    void anEventIsDoneWhenEverySubOperationCompleted() {
        final Event e = new Event(null);
        assertTrue(e.test());
        e.begin(3);
        assertFalse(e.test());
        e.complete(2);
        assertFalse(e.test());
        e.complete(1);
        assertTrue(e.test());
        assertThrows(IllegalStateException.class, () -> e.complete(1));
    }

    @Test
    void doneIsComplete() throws Exception {
        assertTrue(Event.DONE.test());
        Event.DONE.await();
        Event.DONE.toFuture().get();
    }

    @Test
    void categoryMasksAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> Ec.checkMask(0));
        assertThrows(IllegalArgumentException.class, () -> Ec.checkMask(8));
        assertThrows(IllegalArgumentException.class, () -> Ec.index(Ec.ALL));
        assertThrows(IllegalArgumentException.class, () -> Flags.check(2));
    }
}
