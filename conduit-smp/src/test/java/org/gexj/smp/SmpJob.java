package org.gexj.smp;

import org.gexj.Config;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.JobHealth;
import org.gexj.testkit.ThreadBootstrap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.Stream;

/**
 * Test harness: the ranks of one smp job as threads of this JVM, each with its own {@link SmpConduit}, opened
 * collectively over a {@link ThreadBootstrap} with a fresh job id. Every wait is bounded; when one rank fails, the
 * others' waits end too, so a broken test fails instead of spinning on into the next one.
 */
final class SmpJob implements AutoCloseable {
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(25);

    /** The body of one rank. */
    @FunctionalInterface
    interface RankTask<T> {
        T run(int rank) throws Exception;
    }

    final String jobId;
    final SmpConduit[] conduits;
    private volatile boolean failed;

    private SmpJob(String jobId, SmpConduit[] conduits) {
        this.jobId = jobId;
        this.conduits = conduits;
    }

    /** A job id no other test or run shares. */
    static String newJobId() {
        return "gexjsmptest-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
    }

    static SmpJob open(int ranks) {
        return open(ranks, rank -> Map.of());
    }

    /** Opens {@code ranks} conduits, each with its own settings; if any rank fails, closes the others and throws. */
    static SmpJob open(int ranks, IntFunction<Map<String, String>> settings) {
        final String jobId = newJobId();
        final ThreadBootstrap[] bootstraps = ThreadBootstrap.job(ranks);
        final SmpConduit[] conduits = new SmpConduit[ranks];
        final Throwable[] errors = runRanks(ranks, rank -> {
            try {
                conduits[rank] = SmpConduit.open(new ConduitContext(rank, ranks, jobId, bootstraps[rank],
                    Config.of(settings.apply(rank)), new JobHealth()));
            } catch (RuntimeException e) {
                bootstraps[rank].abort(e.toString());
                throw e;
            }
            return null;
        }, () -> { });
        final SmpJob job = new SmpJob(jobId, conduits);
        if (firstFailure(errors) != null) {
            job.close();
            throw rethrowable(errors);
        }
        return job;
    }

    /**
     * Opens a job expected to fail.
     *
     * @return each rank's failure, null for a rank that opened (it is closed again)
     */
    static Throwable[] openFailures(String jobId, int ranks, IntFunction<Map<String, String>> settings) {
        final ThreadBootstrap[] bootstraps = ThreadBootstrap.job(ranks);
        return runRanks(ranks, rank -> {
            try (SmpConduit ignored = SmpConduit.open(new ConduitContext(rank, ranks, jobId, bootstraps[rank],
                Config.of(settings.apply(rank)), new JobHealth()))) {
                return null;
            } catch (RuntimeException e) {
                bootstraps[rank].abort(e.toString());
                throw e;
            }
        }, () -> { });
    }

    int size() {
        return conduits.length;
    }

    /** Runs {@code task} on one thread per rank, concurrently, and returns the results (nulls allowed) by rank. */
    <T> List<T> onEachRank(RankTask<T> task) {
        @SuppressWarnings("unchecked") final T[] results = (T[]) new Object[size()];
        final Throwable[] errors = runRanks(size(), rank -> results[rank] = task.run(rank), () -> failed = true);
        if (firstFailure(errors) != null) {
            throw rethrowable(errors);
        }
        return Arrays.asList(results);
    }

    /** Notify, then spin until the phase completes; bounded, and ended by another rank's failure. */
    void barrier(int rank) {
        final SmpConduit conduit = conduits[rank];
        conduit.barrierNotify();
        final long deadline = System.nanoTime() + WAIT_NS;
        int spins = 0;
        while (!conduit.barrierTry()) {
            if (failed) {
                throw new IllegalStateException("rank " + rank + " left the barrier: another rank failed");
            }
            if ((++spins & 63) == 0) {
                // more ranks than cores: let the ones we wait for run
                Thread.yield();
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("rank " + rank + ": barrier did not complete in 25 s");
                }
            } else {
                Thread.onSpinWait();
            }
        }
    }

    /** Files of this job in /dev/shm. */
    List<Path> files() {
        return filesOf(jobId);
    }

    static List<Path> filesOf(String jobId) {
        try (Stream<Path> all = Files.list(Smp.SHM)) {
            return all.filter(p -> p.getFileName().toString().startsWith(jobId)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        for (SmpConduit c : conduits) {
            if (c != null) {
                c.close();
            }
        }
    }

    private static Throwable[] runRanks(int ranks, RankTask<?> task, Runnable onFailure) {
        final Throwable[] errors = new Throwable[ranks];
        final Thread[] threads = new Thread[ranks];
        for (int r = 0; r < ranks; r++) {
            final int rank = r;
            threads[r] = Thread.ofPlatform().name("smp-rank-" + r).start(() -> {
                try {
                    task.run(rank);
                } catch (Throwable t) {
                    errors[rank] = t;
                    onFailure.run();
                }
            });
        }
        final long deadline = System.nanoTime() + WAIT_NS + TimeUnit.SECONDS.toNanos(1);
        for (int r = 0; r < ranks; r++) {
            try {
                if (!threads[r].join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
                    onFailure.run();
                    throw new AssertionError("rank " + r + " did not finish; stack: "
                        + List.of(threads[r].getStackTrace()));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for rank " + r, e);
            }
        }
        return errors;
    }

    private static Throwable firstFailure(Throwable[] errors) {
        for (Throwable t : errors) {
            if (t != null) {
                return t;
            }
        }
        return null;
    }

    /** The first failure, with the other ranks' attached, as something a test method can throw unchecked. */
    private static RuntimeException rethrowable(Throwable[] errors) {
        final Throwable first = firstFailure(errors);
        for (Throwable t : errors) {
            if (t != null && t != first) {
                first.addSuppressed(t);
            }
        }
        if (first instanceof RuntimeException e) {
            return e;
        }
        if (first instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(first);
    }
}
