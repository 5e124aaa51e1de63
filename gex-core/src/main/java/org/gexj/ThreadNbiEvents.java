package org.gexj;

/**
 * Each thread's NBI events, one per {@link Ec} category: GASNet's NBI completion is per thread, so a thread's
 * {@code nbiWait} waits only for the operations it issued.
 *
 * <p>The events of the thread that asked last are kept in a field and checked against the caller before the
 * thread-local lookup: most clients call from one thread, and a field read is cheaper than the lookup (2-4 ns of a
 * 5-10 ns smp put with NBI wait). The field is racy by design: every value is an immutable holder, so a thread sees
 * either its own holder or another's, never half of one, and checks which.
 */
final class ThreadNbiEvents {
    private final Client client;
    private final ThreadLocal<Owned> byThread = ThreadLocal.withInitial(this::create);
    private Owned last;

    ThreadNbiEvents(Client client) {
        this.client = client;
    }

    /** The calling thread's events, indexed by {@link Ec#index}. */
    Event[] get() {
        final Thread me = Thread.currentThread();
        Owned o = last;
        if (o == null || o.owner() != me) {
            o = byThread.get();
            last = o;
        }
        return o.events();
    }

    private Owned create() {
        final Event[] e = new Event[Ec.COUNT];
        for (int i = 0; i < e.length; i++) {
            e[i] = new Event(client, null);
        }
        return new Owned(Thread.currentThread(), e);
    }

    /** A thread's events and the thread. */
    private record Owned(Thread owner, Event[] events) {
    }
}
