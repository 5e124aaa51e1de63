package org.gexj.testam;

import org.gexj.Client;

import java.util.concurrent.atomic.AtomicReference;

/**
 * testam's {@code -p N}: N extra threads of a receiving rank that poll (run handlers) beside the main thread until
 * the rank's DONE message, as GASNet's PAR testam does. The client serialises polling, so handlers still run one at
 * a time.
 */
final class Pollers {
    private final Client client;
    private final Thread[] threads;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean done;

    Pollers(Client client, int count) {
        this.client = client;
        this.threads = new Thread[count];
    }

    void start() {
        for (int i = 0; i < threads.length; i++) {
            threads[i] = Thread.ofPlatform().daemon().name("testam-poller-" + client.rank() + "-" + i)
                .start(this::poll);
        }
    }

    private void poll() {
        try {
            while (!done) {  // GASNET_BLOCKUNTIL(done), as GASNet's poller threads
                client.poll();
                Thread.onSpinWait();
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }

    /** The DONE message arrived, or the run failed: the threads stop polling. */
    void finish() {
        done = true;
    }

    /** Waits for every thread to end. @throws IllegalStateException carrying the first failure of a thread */
    void join() {
        for (Thread t : threads) {
            if (t != null) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while joining " + t.getName(), e);
                }
            }
        }
        final Throwable t = failure.get();
        if (t != null) {
            throw new IllegalStateException("a polling thread failed: " + t, t);
        }
    }
}
