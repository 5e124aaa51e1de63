package org.gexj.launch;

import org.gexj.Client;
import org.gexj.Config;
import org.gexj.Gex;
import org.gexj.JobExitException;
import org.gexj.PeerFailedException;
import org.gexj.bootstrap.JobSecret;
import org.gexj.launch.rendezvous.RendezvousServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * N ranks as threads of this JVM, for tests: each rank has its own {@link Client} and conduit instance and joins
 * through the real rendezvous and bootstrap. If a rank's body throws, the job is aborted so the other ranks' waits
 * end at once; {@link #run} then throws an {@link AssertionError} carrying the first real failure. A job that
 * outlives its timeout is aborted and reported with what every rank was doing.
 *
 * <p>Why it lives in gex-launch: it is a launcher whose ranks are threads, serving the same rendezvous as gexrun, and
 * it is what users' own unit tests want, so it belongs in a published module that brings nothing but gex-core
 * (a test-scoped dependency on gex-launch). gex-testkit is not published and imposes JUnit and QuickTheories; gex-core
 * is what every rank loads, and a rank needs no launcher.
 */
public final class InProcessJob {
    /** What each rank runs between {@code Gex.init} and {@code close}. */
    @FunctionalInterface
    public interface RankBody {
        void run(Client client) throws Exception;
    }

    private InProcessJob() {
    }

    public static void run(int ranks, Duration timeout, RankBody body) {
        run(ranks, timeout, Map.of(), body);
    }

    /**
     * @param env settings for every rank (e.g. {@code GEX_CONDUIT}); the job's own variables are added
     */
    public static void run(int ranks, Duration timeout, Map<String, String> env, RankBody body) {
        if (ranks < 1 || ranks > 256) {
            throw new IllegalArgumentException("in-process job size " + ranks + " outside [1, 256]");
        }
        final byte[] secret = JobSecret.random(32);
        final String jobId = "gexjt" + JobSecret.hex(JobSecret.random(4));
        final Throwable[] errors = new Throwable[ranks];
        final Thread[] threads = new Thread[ranks];
        try (RendezvousServer server = new RendezvousServer(ranks, secret)) {
            for (int r = 0; r < ranks; r++) {
                final Map<String, String> m = new HashMap<>(env);
                m.put("GEX_RANK", Integer.toString(r));
                m.put("GEX_SIZE", Integer.toString(ranks));
                m.put("GEX_BOOTSTRAP", server.address());
                m.put("GEX_JOB_SECRET", JobSecret.hex(secret));
                m.put("GEX_JOB_ID", jobId);
                m.put("GEX_EXIT_ON_FAILURE", "0");
                final int rank = r;
                threads[r] = new Thread(() -> errors[rank] = runRank(rank, Config.of(m), body, server), "rank-" + r);
                threads[r].start();
            }
            final long deadline = System.nanoTime() + timeout.toNanos();
            for (Thread t : threads) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
            if (Arrays.stream(threads).anyMatch(Thread::isAlive)) {
                final StringBuilder where = new StringBuilder();
                for (Thread t : threads) {
                    if (t.isAlive()) {
                        final StackTraceElement[] stack = t.getStackTrace();
                        where.append("\n  ").append(t.getName()).append(" at ");
                        for (int i = 0; i < Math.min(6, stack.length); i++) {
                            where.append(i == 0 ? "" : " < ").append(stack[i]);
                        }
                    }
                }
                server.abort(-1, "InProcessJob timed out after " + timeout);
                for (Thread t : threads) {
                    t.interrupt();
                    t.join(5000);
                }
                throw new AssertionError("InProcessJob timed out after " + timeout + "; ranks still running:" + where);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for the ranks", e);
        }
        Throwable first = null;
        int firstRank = -1;
        for (int r = 0; r < ranks; r++) {
            final Throwable t = errors[r];
            if (t != null && (first == null
                || (first instanceof PeerFailedException && !(t instanceof PeerFailedException)))) {
                first = t;
                firstRank = r;
            }
        }
        if (first != null) {
            throw new AssertionError("rank " + firstRank + " failed: " + first, first);
        }
    }

    private static Throwable runRank(int rank, Config config, RankBody body, RendezvousServer server) {
        Client client = null;
        try {
            client = Gex.init("TEST", config);
            body.run(client);
            client.close();
            return null;
        } catch (JobExitException e) {
            return e.code() == 0 ? null : e;
        } catch (Throwable t) {
            if (!(t instanceof PeerFailedException)) {
                server.abort(rank, "rank " + rank + " threw " + t);
            }
            if (client != null) {
                client.abort(t.toString());
            }
            // another rank's exit(0) ends the job successfully
            final boolean endedByExitZero = t instanceof PeerFailedException && server.exitRank() >= 0
                && server.exitCode() == 0;
            return endedByExitZero ? null : t;
        }
    }
}
