package org.gexj;

import org.gexj.internal.ClientProgress;

/**
 * The layers' work in the client's polls ({@link ClientProgress}: the collectives', the AM layer's rendezvous pulls by
 * RDMA): unset until a layer needs it, so that other jobs' polls skip it with one load; a second layer's runs after
 * the first's. Run by the thread holding delivery, once at a time: a poll the work makes itself (a request's poll on
 * its way out) does not run it again.
 */
final class LayerProgress {
    private volatile ClientProgress work;
    /** Under the poll lock. */
    private boolean running;

    boolean isSet() {
        return work != null;
    }

    synchronized void add(ClientProgress w) {
        final ClientProgress first = work;
        work = first == null ? w : new Both(first, w);
    }

    /**
     * Tells the work that the client closes ({@link ClientProgress#closing}), before its final barrier, under
     * {@code delivery} as the work's progress runs; while another thread polls, runs {@code whileWaiting} (a check that
     * the wait can end) and yields.
     */
    void closing(DeliveryLock delivery, Runnable whileWaiting) {
        final ClientProgress w = work;
        if (w == null) {
            return;
        }
        while (!delivery.tryLock()) {
            whileWaiting.run();
            Thread.yield(); // another thread polls: a short wait
        }
        try {
            w.closing();
        } finally {
            delivery.unlock();
        }
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

    /** Two layers' work, the first's first. */
    private record Both(ClientProgress first, ClientProgress second) implements ClientProgress {
        @Override
        public int progress() {
            return first.progress() + second.progress();
        }

        @Override
        public void closing() {
            first.closing();
            second.closing();
        }
    }
}
