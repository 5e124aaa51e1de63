package org.gexj;

import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;

/**
 * The events a client hands out for non-blocking operations, reused after their successful test or wait so that the
 * data path allocates nothing in steady state: a new event is made only while more operations are in flight than
 * ever before. Any thread takes and returns.
 */
final class EventPool {
    private static final int CAPACITY = 4096;

    private final Client client;
    private final ManyToManyConcurrentArrayQueue<Event> free = new ManyToManyConcurrentArrayQueue<>(CAPACITY);

    EventPool(Client client) {
        this.client = client;
    }

    Event take() {
        Event e = free.poll();
        if (e == null) {
            e = new Event(client, this);
        }
        e.reuse();
        return e;
    }

    /** A full pool drops the event: more than its capacity were in flight at once, and the garbage collector has it. */
    void release(Event e) {
        free.offer(e);
    }
}
