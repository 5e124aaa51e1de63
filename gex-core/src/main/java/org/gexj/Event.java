package org.gexj;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;

/**
 * Completion of a non-blocking operation ({@code gex_Event_t}). {@link #test()} never polls; {@link #await()} polls
 * the client (running handlers) until done. Events are not thread-specific.
 *
 * <p>As in GASNet-EX, the event a non-blocking call returns is <em>consumed</em> by the {@link #test()} that returns
 * true or the {@link #await()} that returns: the library then reuses it for a later operation, so that no operation
 * allocates. Using a consumed event again throws {@link IllegalStateException} while it is unused; keep no reference
 * to an event after it has completed. {@link #DONE} and the events of NBI categories and access regions are never
 * consumed.
 *
 * <p>An operation that fails after it was started (for example, its data could not be stored at completion)
 * completes its event with an error: {@code await()} then throws {@link GexException} with the cause, and
 * {@code test()} returns true with {@link #failure()} set.
 */
public final class Event {
    private static final VarHandle PENDING;
    private static final VarHandle STATE;

    static {
        try {
            PENDING = MethodHandles.lookup().findVarHandle(Event.class, "pending", int.class);
            STATE = MethodHandles.lookup().findVarHandle(Event.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final int IN_USE = 0;
    private static final int FREE = 1;

    /** An event that is already complete ({@code GEX_EVENT_INVALID}): returned for operations done at return. */
    public static final Event DONE = new Event(null, null);

    private final Client client;
    /** Non-null for events consumed by their successful test or wait, and then returned here. */
    private final EventPool pool;
    @SuppressWarnings("unused")
    private volatile int pending;
    @SuppressWarnings("unused")
    private volatile int state;
    private volatile Throwable failure;

    Event(Client client, EventPool pool) {
        this.client = client;
        this.pool = pool;
    }

    /**
     * @return true if complete (then a returned event is consumed); never polls and never runs handlers
     * @throws IllegalStateException if this event was consumed already
     */
    public boolean test() {
        if (this == DONE) {
            return true;
        }
        if ((int) PENDING.getAcquire(this) != 0) {
            checkNotConsumed();
            return false;
        }
        consume();
        return true;
    }

    /**
     * Polls until complete, running handlers; consumes a returned event. Not callable from a handler, even when the
     * event is complete. An exception thrown by a handler run meanwhile propagates from here; the operation is not
     * affected, and {@code await()} may be called again.
     *
     * @throws GexException if the operation failed after it was started (the cause says why)
     * @throws IllegalStateException if this event was consumed already
     * @throws PeerFailedException if a peer fails meanwhile
     */
    public void await() {
        if (this == DONE) {
            return;
        }
        if (client != null) {
            client.checkNotRestricted("waiting for an event");
        }
        checkNotConsumed();
        if ((int) PENDING.getAcquire(this) != 0) {
            client.awaitEvent(this);
        }
        final Throwable f = failure;
        if (f != null && pool == null) {
            failure = null; // a reusable event reports a failure once
        }
        consume();
        if (f != null) {
            throw new GexException("the operation failed after it was started: " + f, f);
        }
    }

    /**
     * Complete without a failure to report: what {@link Client#nbiWait} checks before it waits (an NBI event is the
     * thread's own, never consumed, so a complete one needs nothing else).
     */
    boolean completeWithoutFailure() {
        return (int) PENDING.getAcquire(this) == 0 && failure == null;
    }

    /** The failure of a completed operation, or null. */
    public Throwable failure() {
        return failure;
    }

    /**
     * A future completed when this event is (consuming it); a virtual thread polls with back-off, no platform thread
     * spins. Allocates: for the control path.
     */
    public CompletableFuture<Void> toFuture() {
        final CompletableFuture<Void> future = new CompletableFuture<>();
        if (test() && failure == null) {
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

    /** Sub-operations still pending (a diagnostic; 0 once complete). */
    public int pending() {
        return pending;
    }

    private void checkNotConsumed() {
        if (pool != null && (int) STATE.getAcquire(this) == FREE) {
            throw new IllegalStateException("this event was consumed by a successful test() or await() already");
        }
    }

    /** A pooled event goes back to its pool once; the reusable ones are kept by the library. */
    private void consume() {
        if (pool == null) {
            return;
        }
        if (!STATE.compareAndSet(this, IN_USE, FREE)) {
            throw new IllegalStateException("this event was consumed by a successful test() or await() already");
        }
        failure = null;
        pool.release(this);
    }

    /** Taken from the pool for a new operation. */
    void reuse() {
        STATE.setRelease(this, IN_USE);
    }

    void begin(int n) {
        if (this == DONE) {
            throw new IllegalStateException("Event.DONE is immutable");
        }
        PENDING.getAndAdd(this, n);
    }

    /** {@link #begin} before any other thread can see this event (taken from the pool, nothing pending). */
    void beginUnseen(int n) {
        PENDING.setOpaque(this, n);
    }

    /**
     * Completes the last pending operation, where no other thread begins or completes this event meanwhile. Why not
     * {@link #complete}: its atomic add is a full fence, and where the completion follows a send, it waits for the
     * send's stores to reach the peer's cache (a collective's leaf spent 12% of its time there).
     */
    void completeSole(Throwable cause) {
        final int before = (int) PENDING.getOpaque(this);
        if (before != 1) {
            throw new IllegalStateException("event completed as the last of " + before + " pending operations");
        }
        if (cause != null && failure == null) {
            failure = cause;
        }
        PENDING.setRelease(this, 0);
    }

    void complete(int n) {
        final int before = (int) PENDING.getAndAdd(this, -n);
        if (before - n < 0) {
            throw new IllegalStateException("event completed more often than begun: pending " + (before - n));
        }
    }

    void fail(int n, Throwable cause) {
        if (failure == null) {
            failure = cause;
        }
        complete(n);
    }
}
