package org.gexj.testkit;

import org.gexj.GexException;
import org.gexj.spi.Bootstrap;

import java.util.concurrent.TimeUnit;

/**
 * A test-only {@link Bootstrap} for ranks that are threads of one JVM: every allgather meets in a shared
 * {@link Exchange}. Waits are bounded, and {@link #abort} ends every rank's current and future waits.
 */
public final class ThreadBootstrap implements Bootstrap {
    /** The longest any allgather waits for the other ranks. */
    public static final long WAIT_NS = TimeUnit.SECONDS.toNanos(20);

    private final Exchange exchange;
    private final int rank;

    private ThreadBootstrap(Exchange exchange, int rank) {
        this.exchange = exchange;
        this.rank = rank;
    }

    /** One bootstrap per rank of a job of {@code size} ranks. */
    public static ThreadBootstrap[] job(int size) {
        final Exchange exchange = new Exchange(size);
        final ThreadBootstrap[] ranks = new ThreadBootstrap[size];
        for (int r = 0; r < size; r++) {
            ranks[r] = new ThreadBootstrap(exchange, r);
        }
        return ranks;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return exchange.size;
    }

    @Override
    public byte[][] allgather(byte[] mine) {
        return exchange.allgather(rank, mine);
    }

    @Override
    public void abort(String reason) {
        exchange.abort("rank " + rank + ": " + reason);
    }

    @Override
    public void close() {
    }

    /** The meeting point: a generation counter so a fast rank's next allgather cannot overwrite a slow one's result. */
    private static final class Exchange {
        private final int size;
        private byte[][] slots;
        private byte[][] result;
        private int arrived;
        private long generation;
        private String failure;

        Exchange(int size) {
            this.size = size;
            this.slots = new byte[size][];
        }

        synchronized byte[][] allgather(int rank, byte[] mine) {
            checkNotFailed();
            final long myGeneration = generation;
            slots[rank] = mine.clone();
            if (++arrived == size) {
                result = slots;
                slots = new byte[size][];
                arrived = 0;
                generation++;
                notifyAll();
            }
            final long deadline = System.nanoTime() + WAIT_NS;
            while (generation == myGeneration) {
                checkNotFailed();
                final long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new GexException("rank " + rank + ": allgather timed out, " + arrived + " of " + size
                        + " arrived");
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new GexException("rank " + rank + ": interrupted in allgather", e);
                }
            }
            final byte[][] copy = new byte[size][];
            for (int r = 0; r < size; r++) {
                copy[r] = result[r].clone();
            }
            return copy;
        }

        synchronized void abort(String reason) {
            if (failure == null) {
                failure = reason;
            }
            notifyAll();
        }

        private void checkNotFailed() {
            if (failure != null) {
                throw new GexException("job aborted by " + failure);
            }
        }
    }
}
