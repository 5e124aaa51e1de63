package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.launch.InProcessJob;

import java.time.Duration;
import java.util.Map;

/**
 * Base of the conformance kits: a conduit module subclasses a kit and says how to select its conduit. Every job runs
 * as threads of this JVM with real conduit instances, with a timeout.
 */
public abstract class ConduitKit {
    /** Environment that selects and configures the conduit under test, e.g. {@code GEX_CONDUIT=smp}. */
    protected abstract Map<String, String> environment();

    protected Duration timeout() {
        return Duration.ofSeconds(60);
    }

    /**
     * How many ranks a test written for {@code ranks} runs with: as written by default; a subclass may run the
     * tests that are written for any job size with more.
     */
    protected int ranks(int ranks) {
        return ranks;
    }

    protected void job(int ranks, InProcessJob.RankBody body) {
        InProcessJob.run(ranks(ranks), timeout(), environment(), body);
    }

    protected void job(int ranks, Map<String, String> extra, InProcessJob.RankBody body) {
        final java.util.HashMap<String, String> env = new java.util.HashMap<>(environment());
        env.putAll(extra);
        InProcessJob.run(ranks(ranks), timeout(), env, body);
    }

    /** A job of exactly {@code ranks}: for a test whose roles or memory layout are written for that size. */
    protected void exactJob(int ranks, InProcessJob.RankBody body) {
        InProcessJob.run(ranks, timeout(), environment(), body);
    }

    protected void exactJob(int ranks, Map<String, String> extra, InProcessJob.RankBody body) {
        final java.util.HashMap<String, String> env = new java.util.HashMap<>(environment());
        env.putAll(extra);
        InProcessJob.run(ranks, timeout(), env, body);
    }

    /**
     * Polls for {@code millis} after a barrier, so that a frame sent before it when nothing should have been sent
     * (a rejected call, a cancelled prepare, a back-pressured IMMEDIATE send) is delivered before the test counts.
     */
    protected static void pollAWhile(Client client, long millis) {
        final long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            client.poll();
            Thread.onSpinWait();
        }
    }
}
