package org.gexj;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which threads are in a restricted context, where GASNet-EX forbids most calls: a handler (only the thread holding
 * the {@link DeliveryLock} runs one) or an NPAM prepare..commit pair (any thread).
 */
final class HandlerContext {
    /*
     * Added to npamThreads once the client is closed: the one read the send path makes anyway (is any thread in
     * NPAM?) then also catches a closed client, so that check costs the data path nothing. The read is plain: a thread
     * sees its own NPAM counts in program order, and closing the client while another thread still sends is a race the
     * caller must not start. A volatile read there kept every check of an smp put in the caller's loop (4-5 ns a put);
     * a plain one lets C2 hoist them out (0.3-1 ns for 1-32 bytes).
     */
    private static final int CLOSED_MARK = 1 << 30;

    /*
     * Only the thread running handlers (it holds the delivery lock) writes these two, so a racy read by another thread
     * never sees its own Thread here.
     */
    private Thread handlerThread;
    private String handlerWhat;
    /* Most threads never use NPAM: the count of those in a pair lets the data path skip the thread-local lookup. */
    private final AtomicInteger npamThreads = new AtomicInteger();
    private final ThreadLocal<String[]> npam = ThreadLocal.withInitial(() -> new String[1]);

    /** Enters a handler on this thread; @return the context it nests in, for {@link #exitHandler} */
    String enterHandler(String what) {
        final String previous = handlerThread == Thread.currentThread() ? handlerWhat : null;
        handlerThread = Thread.currentThread();
        handlerWhat = what;
        return previous;
    }

    void exitHandler(String previous) {
        handlerWhat = previous;
        if (previous == null) {
            handlerThread = null;
        }
    }

    /** Enters ({@code what} names the pair) or leaves ({@code null}) an NPAM pair on this thread. */
    void setNpam(String what) {
        final String[] mine = npam.get();
        if ((mine[0] == null) != (what == null)) {
            npamThreads.addAndGet(what == null ? -1 : 1);
        }
        mine[0] = what;
    }

    /** @return the NPAM pair this thread is in, or null */
    String npamContext() {
        return npamThreads.get() == 0 ? null : npam.get()[0];
    }

    /** Once the client is closed, {@link #npamOrClosed} is always true. */
    void markClosed() {
        npamThreads.addAndGet(CLOSED_MARK);
    }

    /** @return false if no thread is in an NPAM pair and the client is open: the common case, one plain read */
    boolean npamOrClosed() {
        return npamThreads.getPlain() != 0;
    }

    boolean restricted() {
        return handlerThread == Thread.currentThread() || npamContext() != null;
    }

    /** @throws HandlerContextException if this thread is in a handler */
    void checkNotInHandler(String operation) {
        if (handlerThread == Thread.currentThread()) {
            throw new HandlerContextException(operation + " is not allowed inside " + handlerWhat);
        }
    }

    /** @throws HandlerContextException if this thread is in a handler or an NPAM pair */
    void checkNotRestricted(String operation) {
        checkNotInHandler(operation);
        final String n = npamContext();
        if (n != null) {
            throw new HandlerContextException(operation + " is not allowed inside " + n);
        }
    }

    /** The NPAM half of {@link #checkNotRestricted}, once {@link #npamOrClosed} said to look. */
    void checkNotInNpam(String operation) {
        final String n = npam.get()[0];
        if (n != null) {
            throw new HandlerContextException(operation + " is not allowed inside " + n);
        }
    }
}
