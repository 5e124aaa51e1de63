package org.gexj.testkit.emu;

import org.gexj.Config;
import org.gexj.GexException;
import org.gexj.spi.Bootstrap;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.JobHealth;

import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Test harness: the emu conduits of one job, opened collectively by one thread per rank over an in-memory bootstrap,
 * then driven by the test's own thread (each conduit is polled by one thread at a time, the test's). Bounded waits:
 * a rank that does not open in time fails the test instead of hanging it.
 */
final class EmuTestJob implements AutoCloseable {
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(20);

    final String jobId;
    final EmuConduit[] conduits;

    private EmuTestJob(String jobId, EmuConduit[] conduits) {
        this.jobId = jobId;
        this.conduits = conduits;
    }

    static EmuTestJob open(int ranks) {
        return open(ranks, Map.of());
    }

    /** Opens {@code ranks} conduits with {@code settings} (GEX_EMU_*) on every rank; rethrows the first failure. */
    static EmuTestJob open(int ranks, Map<String, String> settings) {
        final String jobId = "gexjemutest-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        final Exchange exchange = new Exchange(ranks);
        final EmuConduit[] conduits = new EmuConduit[ranks];
        final Throwable[] errors = new Throwable[ranks];
        final Thread[] threads = new Thread[ranks];
        for (int r = 0; r < ranks; r++) {
            final int rank = r;
            threads[r] = Thread.ofPlatform().name("emu-open-" + r).start(() -> {
                final LocalBootstrap bootstrap = new LocalBootstrap(exchange, rank);
                try {
                    conduits[rank] = EmuConduit.open(new ConduitContext(rank, ranks, jobId, bootstrap,
                        Config.of(new HashMap<>(settings)), new JobHealth()));
                } catch (Throwable t) {
                    errors[rank] = t;
                    bootstrap.abort(t.toString());
                }
            });
        }
        final EmuTestJob job = new EmuTestJob(jobId, conduits);
        for (Thread t : threads) {
            try {
                if (!t.join(Duration.ofNanos(WAIT_NS + TimeUnit.SECONDS.toNanos(1)))) {
                    job.close();
                    throw new AssertionError(t.getName() + " did not finish opening");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while opening", e);
            }
        }
        for (Throwable t : errors) {
            if (t != null) {
                job.close();
                if (t instanceof RuntimeException e) {
                    throw e;
                }
                throw new AssertionError("a rank failed to open", t);
            }
        }
        return job;
    }

    EmuConduit rank(int r) {
        return conduits[r];
    }

    @Override
    public void close() {
        for (EmuConduit c : conduits) {
            if (c != null) {
                c.close();
            }
        }
    }

    /** The bootstrap of one rank: allgathers meet in the job's {@link Exchange}. */
    private static final class LocalBootstrap implements Bootstrap {
        private final Exchange exchange;
        private final int rank;

        LocalBootstrap(Exchange exchange, int rank) {
            this.exchange = exchange;
            this.rank = rank;
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
    }

    /** A generation counter keeps a fast rank's next allgather from overwriting a slow one's result. */
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
            check();
            final long mineGeneration = generation;
            slots[rank] = mine.clone();
            if (++arrived == size) {
                result = slots;
                slots = new byte[size][];
                arrived = 0;
                generation++;
                notifyAll();
            }
            final long deadline = System.nanoTime() + WAIT_NS;
            while (generation == mineGeneration) {
                check();
                final long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new GexException("rank " + rank + ": allgather timed out");
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new GexException("rank " + rank + ": interrupted in allgather", e);
                }
            }
            return result.clone();
        }

        synchronized void abort(String reason) {
            if (failure == null) {
                failure = reason;
            }
            notifyAll();
        }

        private void check() {
            if (failure != null) {
                throw new GexException("job aborted by " + failure);
            }
        }
    }
}
