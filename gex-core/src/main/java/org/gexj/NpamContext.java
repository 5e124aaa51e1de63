package org.gexj;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which threads are in an NPAM prepare..commit pair (any thread may be), a restricted context where GASNet-EX forbids
 * most calls; and, folded into the same count, whether the client is closed. The other restricted context, a handler,
 * is tracked by {@link Client} itself: only the thread holding the delivery lock runs one.
 */
final class NpamContext {
    /*
     * Added to threads once the client is closed: the one read the send path makes anyway (is any thread in
     * NPAM?) then also catches a closed client, so that check costs the data path nothing. The read is plain: a
     * thread sees its own NPAM counts in program order, and closing the client while another thread still sends is a
     * race the caller must not start. A volatile read there kept every check of an smp put in the caller's loop (4-5 ns
     * a put); a plain one lets C2 hoist them out (0.3-1 ns for 1-32 bytes).
     */
    private static final int CLOSED_MARK = 1 << 30;

    /* Most threads never use NPAM: the count of those in a pair lets the data path skip the thread-local lookup. */
    private final AtomicInteger threads = new AtomicInteger();
    private final ThreadLocal<String[]> pair = ThreadLocal.withInitial(() -> new String[1]);

    /** Enters ({@code what} names the pair) or leaves ({@code null}) an NPAM pair on this thread. */
    void set(String what) {
        final String[] mine = pair.get();
        if ((mine[0] == null) != (what == null)) {
            threads.addAndGet(what == null ? -1 : 1);
        }
        mine[0] = what;
    }

    /** @return the NPAM pair this thread is in, or null */
    String current() {
        return threads.get() == 0 ? null : pair.get()[0];
    }

    /** Once the client is closed, {@link #inUseOrClosed} is always true. */
    void markClosed() {
        threads.addAndGet(CLOSED_MARK);
    }

    /** @return false if no thread is in an NPAM pair and the client is open: the common case, one plain read */
    boolean inUseOrClosed() {
        return threads.getPlain() != 0;
    }

    /** @throws HandlerContextException if this thread is in an NPAM pair */
    void check(String operation) {
        final String n = current();
        if (n != null) {
            throw new HandlerContextException(operation + " is not allowed inside " + n);
        }
    }
}
