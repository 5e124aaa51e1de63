package org.gexj.testkit.emu;

import org.gexj.Config;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.JobHealth;
import org.gexj.testkit.ThreadBootstrap;

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
        final ThreadBootstrap[] bootstraps = ThreadBootstrap.job(ranks);
        final EmuConduit[] conduits = new EmuConduit[ranks];
        final Throwable[] errors = new Throwable[ranks];
        final Thread[] threads = new Thread[ranks];
        for (int r = 0; r < ranks; r++) {
            final int rank = r;
            threads[r] = Thread.ofPlatform().name("emu-open-" + r).start(() -> {
                final ThreadBootstrap bootstrap = bootstraps[rank];
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
                if (!t.join(Duration.ofNanos(ThreadBootstrap.WAIT_NS + TimeUnit.SECONDS.toNanos(1)))) {
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
}
