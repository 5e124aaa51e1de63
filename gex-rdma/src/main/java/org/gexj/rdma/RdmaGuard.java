package org.gexj.rdma;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The lock of one conduit's endpoint and the state of its close, shared by the conduit's parts.
 *
 * <p>One lock serialises the NIC (a libfabric endpoint is {@code FI_THREAD_DOMAIN}; verbs queues are used by one
 * thread at a time) and guards every part's shared state (send slots, credits, backlog, RMA operations, bounce
 * buffers, registrations, deferred completions). A section that calls the NIC takes it with {@link #lockOpen()},
 * which fails from the start of the close (nothing goes to a peer after this rank's CLOSE), or with
 * {@link #lockUnclosed()} for what the close's drain still needs (reposting a receive buffer, an RMA chunk's
 * completion). Any thread may call; the flags are volatile, written under the lock.
 */
final class RdmaGuard {
    private final ReentrantLock lock = new ReentrantLock();
    private final String conduit;
    private final int rank;
    /**
     * Set by the close before it sends its CLOSE messages: from then on only the close sends or reads the completion
     * queue (within one process, shm maps a peer's region once for all its ranks, and the peer unmaps it at its close
     * once it has heard this rank's CLOSE).
     */
    private volatile boolean closing;
    /** Set under the lock by the close, which tears the fabric down under it. */
    private volatile boolean closed;
    /** Polls running (nested ones in handlers counted): only the polling thread writes it. */
    private volatile int polling;

    RdmaGuard(String conduit, int rank) {
        this.conduit = conduit;
        this.rank = rank;
    }

    void lock() {
        lock.lock();
    }

    /** Takes the lock if it is free: never queues, so never allocates. */
    boolean tryLock() {
        return lock.tryLock();
    }

    void unlock() {
        lock.unlock();
    }

    /**
     * Takes the lock of an open conduit. A call checks {@link #closing()} first without the lock, and may wait for it
     * while the close drains or tears the fabric down: checked again under it, so nothing native is touched by anyone
     * but the close afterwards.
     *
     * @throws IllegalStateException if the conduit is closing or closed (the lock is not held then)
     */
    void lockOpen() {
        lock.lock();
        if (closing) {
            lock.unlock();
            throw closedException();
        }
    }

    /**
     * As {@link #lockOpen()} for what sends nothing to a peer (reposting a receive buffer): allowed while the close
     * drains, which needs the buffers, but not after its teardown.
     */
    void lockUnclosed() {
        lock.lock();
        if (closed) {
            lock.unlock();
            throw closedException();
        }
    }

    /** @throws IllegalStateException from the start of the close */
    void ensureOpen() {
        if (closing) {
            throw closedException();
        }
    }

    IllegalStateException closedException() {
        return new IllegalStateException(conduit + " conduit of rank " + rank + " is closed");
    }

    boolean closing() {
        return closing;
    }

    /** The close begins: every later {@link #lockOpen()} fails. */
    void startClosing() {
        closing = true;
    }

    boolean closed() {
        return closed;
    }

    /** Under the lock: the close tears the fabric down. */
    void markClosed() {
        closed = true;
    }

    /** A poll begins; counted before it checks for the close, so that a close defers freeing what it reads. */
    void pollStarted() {
        polling++;
    }

    /** @return the polls still running once this one has ended */
    int pollEnded() {
        return --polling;
    }

    int polling() {
        return polling;
    }
}
