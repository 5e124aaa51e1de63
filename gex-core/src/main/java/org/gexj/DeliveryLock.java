package org.gexj;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Lets one thread at a time run handlers (GASNet-EX runs a client's handlers one at a time only on request; GEX/J
 * always does, so that handlers need no locks). Reentrant for its owner: a reply blocked inside a handler polls.
 *
 * <p>Why not {@code ReentrantLock}: its release is a volatile write, a full fence on x86, paid on every poll that finds
 * something and on every AM to this rank (10 % of a looped-back AMShort round trip). A release store is all that
 * mutual exclusion needs.
 */
final class DeliveryLock {
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(DeliveryLock.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through OWNER
    private volatile Thread owner;
    /** How often the owner holds it; only the owner reads and writes it. */
    private int holds;

    /** @return true if the calling thread now holds the lock (once more, if it held it already) */
    boolean tryLock() {
        final Thread me = Thread.currentThread();
        final Thread current = (Thread) OWNER.getAcquire(this);
        if (current == me) {
            holds++;
            return true;
        }
        if (current == null && OWNER.compareAndSet(this, null, me)) {
            holds = 1;
            return true;
        }
        return false;
    }

    /** Gives back one hold of a successful {@link #tryLock}, by the same thread. */
    void unlock() {
        if (--holds == 0) {
            OWNER.setRelease(this, null);
        }
    }
}
