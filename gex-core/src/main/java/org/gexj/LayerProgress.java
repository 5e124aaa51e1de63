package org.gexj;

import org.gexj.internal.ClientProgress;

/**
 * A layer's work in the client's polls ({@link ClientProgress}, the collectives'): unset until a layer needs it, so
 * that other jobs' polls skip it with one load. Run by the thread holding delivery, once at a time: a poll the work
 * makes itself (a request's poll on its way out) does not run it again.
 */
final class LayerProgress {
    private volatile ClientProgress work;
    /** Under the poll lock. */
    private boolean running;

    boolean isSet() {
        return work != null;
    }

    synchronized void set(ClientProgress w) {
        if (work != null) {
            throw new IllegalStateException("a progress function is set already");
        }
        work = w;
    }

    /** @return what the work did, or 0 where it is unset or running already */
    int run() {
        final ClientProgress w = work;
        if (w == null || running) {
            return 0;
        }
        running = true;
        try {
            return w.progress();
        } finally {
            running = false;
        }
    }
}
