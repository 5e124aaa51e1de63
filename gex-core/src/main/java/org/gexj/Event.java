package org.gexj;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;

/**
 * Completion of a non-blocking operation ({@code gex_Event_t}). {@link #test()} never polls;
 * {@link #await()} polls the client (running handlers) until done. Events are not thread-specific.
 *
 * <p>An event counts pending sub-operations: the library calls {@link #begin(int)} when it issues them and
 * {@link #complete(int)} as they finish. NBI categories and access regions are events that are never consumed.
 */
public class Event {
    private static final VarHandle PENDING;

    static {
        try {
            PENDING = MethodHandles.lookup().findVarHandle(Event.class, "pending", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** An event that is already complete ({@code GEX_EVENT_INVALID}): returned for operations done at return. */
    public static final Event DONE = new Event(null);

    private final Client client;
    @SuppressWarnings("unused")
    private volatile int pending;

    public Event(Client client) {
        this.client = client;
    }

    /** @return true if complete; never polls and never runs handlers */
    public boolean test() {
        return (int) PENDING.getAcquire(this) == 0;
    }

    /** Polls until complete. Not callable from a handler, even when already complete. */
    public void await() {
        if (client != null) {
            client.checkNotRestricted("waiting for an event");
        }
        if (!test()) {
            client.awaitEvent(this);
        }
    }

    /** A future completed when this event is; a virtual thread polls with back-off, no platform thread spins. */
    public CompletableFuture<Void> toFuture() {
        final CompletableFuture<Void> future = new CompletableFuture<>();
        if (test()) {
            future.complete(null);
            return future;
        }
        Thread.ofVirtual().name("gex-event-future").start(() -> {
            try {
                await();
                future.complete(null);
            } catch (Throwable t) {
                future.completeExceptionally(t);
            }
        });
        return future;
    }

    /** Library use: {@code n} more sub-operations are pending. */
    public void begin(int n) {
        PENDING.getAndAdd(this, n);
    }

    /** Library use: {@code n} sub-operations finished. */
    public void complete(int n) {
        final int before = (int) PENDING.getAndAdd(this, -n);
        if (before - n < 0) {
            throw new IllegalStateException("event completed more often than begun: pending " + (before - n));
        }
    }

    public int pending() {
        return pending;
    }
}
