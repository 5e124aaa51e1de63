package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.launch.InProcessJob;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Base of the conformance kits: a conduit module subclasses a kit and says how to select its conduit, and how its
 * jobs run ({@link #launch()}): as threads of the test's JVM with real conduit instances (the default), or as processes
 * started by a launcher (gexrun or mpirun), one JVM per rank, as users run them. Every job has a timeout.
 *
 * <p>A test body may share Java objects between its ranks only through {@link #signals()}: with gexrun every rank
 * runs the test method in a JVM of its own.
 */
@ExtendWith(KitTimeout.class)
public abstract class ConduitKit {
    /** How a kit's jobs run. */
    protected enum Launch {
        /** Ranks are threads of the test's JVM ({@link InProcessJob}). */
        THREADS,
        /**
         * Ranks are processes started by the launcher (gexrun). Each rank process runs the test method again and, of
         * the jobs the method starts, only the one the driver launched it for ({@link KitRank}): a test method's work
         * outside its jobs must therefore be the same in every process (property tests draw from a seed the driver
         * passes, and do not shrink a failure, which would need the driver's verdicts in every process).
         */
        GEXRUN,
        /**
         * Ranks are processes started by Open MPI's {@code mpirun}, as {@code bin/gexrank} starts them: they find the
         * job through mpirun's PMIx server. Each rank process runs the test method again, as with {@link #GEXRUN}.
         */
        MPIRUN
    }

    private String testMethod;
    /** With gexrun: the outcome of each job the current test method started (null: passed). */
    private final List<AssertionError> verdicts = new ArrayList<>();
    private KitSignals signals;
    private final long seed = KitRank.active() ? KitRank.seed() : System.nanoTime();

    /**
     * How this class runs its jobs, named once ({@link KitSetup}): then it gives {@link #environment()},
     * {@link #launch()} and the least job size of {@link #ranks(int)}. Null, the default, where the class overrides
     * {@link #environment()} (and the others as it needs).
     */
    protected KitSetup setup() {
        return null;
    }

    /**
     * Environment that selects and configures the conduit under test, e.g. {@code GEX_CONDUIT=smp}: a subclass names
     * it here or in {@link #setup()}.
     */
    protected Map<String, String> environment() {
        final KitSetup setup = setup();
        if (setup == null) {
            throw new IllegalStateException(getClass().getName() + " overrides neither environment() nor setup()");
        }
        return setup.environment();
    }

    /** How this kit's jobs run: threads unless a subclass (or its {@link #setup()}) says otherwise. */
    protected Launch launch() {
        final KitSetup setup = setup();
        return setup == null ? Launch.THREADS : setup.launch();
    }

    /** The budget of each job a test starts. */
    protected Duration timeout() {
        return Duration.ofSeconds(60);
    }

    /** The budget of a whole test method: by default a job's budget and a minute more, at least two minutes. */
    protected Duration methodTimeout() {
        final Duration byJob = timeout().plusSeconds(60);
        return byJob.compareTo(Duration.ofSeconds(120)) > 0 ? byJob : Duration.ofSeconds(120);
    }

    /**
     * The hosts this kit's jobs of processes run on, which the class sets up (a static {@link NetnsPair} or
     * {@link NetnsSshHosts} field); null, the default, for this host's loopback. The launcher hooks below take
     * their defaults from it. Called in the driver only.
     */
    protected KitHosts hosts() {
        return null;
    }

    /**
     * With {@link Launch#GEXRUN}: options given to gexrun before its program, e.g. {@code --bind ADDRESS} and
     * {@code --wrap PREFIX} to put the ranks elsewhere (another network namespace, another host); by default those of
     * {@link #hosts()}, none without. Called in the driver only.
     */
    protected List<String> gexrunOptions() {
        return hosts() == null ? List.of() : hosts().gexrunOptions();
    }

    /**
     * With {@link Launch#MPIRUN}: options given to mpirun before its program, e.g. {@code --host A,B --map-by node} and
     * the ssh command that reaches the hosts ({@link NetnsSshHosts#mpirunOptions()}); none by default (every rank on
     * this host). Called in the driver only.
     */
    protected List<String> mpirunOptions() {
        return List.of();
    }

    /**
     * With a launcher: words run in front of the launcher's own command, e.g.
     * {@code ip netns exec NS} to start it in the network namespace it binds its rendezvous in; by default that of
     * {@link #hosts()}, none without. Called in the driver only.
     */
    protected List<String> launcherPrefix() {
        return hosts() == null ? List.of() : hosts().launcherPrefix();
    }

    /**
     * How many ranks a test written for {@code ranks} runs with: as written by default, or as many as
     * {@link #hosts()} want, and at least as many as {@link #setup()} says; a subclass may run the tests that are
     * written for any job size with more. Called in the driver and in every rank process (which checks that its job
     * has that size).
     */
    protected int ranks(int ranks) {
        final int byHosts = hosts() == null ? ranks : hosts().ranks(ranks);
        final KitSetup setup = setup();
        return setup == null ? byHosts : setup.ranks(byHosts);
    }

    @BeforeEach
    void rememberTest(TestInfo info) {
        testMethod = info.getTestMethod().map(java.lang.reflect.Method::getName).orElseThrow();
        verdicts.clear();
    }

    /** True when jobs run as processes: in the driver and in each rank process. */
    protected final boolean launchesProcesses() {
        return KitRank.active() || launch() != Launch.THREADS;
    }

    /** The seed of the test's property draws: the same in the driver and in every rank process of its jobs. */
    protected final long seed() {
        return seed;
    }

    /** The current job's values passed between ranks outside GEX/J. */
    protected final KitSignals signals() {
        return KitRank.active() ? KitRank.signals() : signals;
    }

    protected void job(int ranks, InProcessJob.RankBody body) {
        start(ranks(ranks), Map.of(), body);
    }

    protected void job(int ranks, Map<String, String> extra, InProcessJob.RankBody body) {
        start(ranks(ranks), extra, body);
    }

    /** A job of exactly {@code ranks}: for a test whose roles or memory layout are written for that size. */
    protected void exactJob(int ranks, InProcessJob.RankBody body) {
        start(ranks, Map.of(), body);
    }

    protected void exactJob(int ranks, Map<String, String> extra, InProcessJob.RankBody body) {
        start(ranks, extra, body);
    }

    /**
     * Whether a job that failed failed with a {@code type} thrown by a rank: its cause with threads; with gexrun, a
     * rank's printed stack trace names it.
     */
    protected final boolean failedWith(AssertionError jobFailure, Class<? extends Throwable> type) {
        if (jobFailure.getCause() instanceof ProcessKitJob.Failure f) {
            return f.getMessage().contains(type.getName());
        }
        return type.isInstance(jobFailure.getCause());
    }

    private void start(int ranks, Map<String, String> extra, InProcessJob.RankBody body) {
        final Map<String, String> env = new HashMap<>(environment());
        env.putAll(extra);
        if (KitRank.active()) {
            KitRank.job(ranks, body);
        } else if (launch() != Launch.THREADS) {
            try {
                ProcessKitJob.run(getClass(), testMethod, verdicts, ranks, env, seed, timeout(),
                    new ProcessKitJob.Placement(launch(), launcherPrefix(),
                        launch() == Launch.MPIRUN ? mpirunOptions() : gexrunOptions(),
                        hosts() == null ? List.of() : hosts().addresses()));
                verdicts.add(null);
            } catch (AssertionError e) {
                verdicts.add(e);
                throw e;
            }
        } else {
            signals = KitSignals.inMemory();
            InProcessJob.run(ranks, timeout(), env, body);
        }
    }

    /**
     * Polls for {@code millis}, so that a frame sent before, when nothing should have been sent, is delivered before
     * the test counts. Prefer a {@link Marker}, which waits for a message that comes after any such frame.
     */
    protected static void pollAWhile(Client client, long millis) {
        final long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            client.poll();
            Thread.onSpinWait();
        }
    }

    /**
     * A request sent after an operation that must send nothing (a rejected call, a cancelled prepare, a back-pressured
     * IMMEDIATE send): the peer that checks that nothing arrived polls until the marker has, and the marker counts
     * itself, so a check made without it fails. Where the conduit's channels are ordered (udp, smp) any frame the
     * operation sent to the peer arrives before the marker; where they are not (ofi, emu), such a frame may be
     * overtaken, so the peer polls a while longer too. Every rank registers the marker's handler, at the same point.
     */
    protected static final class Marker {
        private final Am am;
        private final int handler;
        private final AtomicInteger arrived = new AtomicInteger();

        public Marker(Am am) {
            this.am = am;
            this.handler = am.register(AmHandler.shortRequest(0, (t, a) -> arrived.incrementAndGet()));
        }

        /** Sends the marker to {@code peer}, after the operation under test. */
        public void send(int peer) {
            am.requestShort(peer, handler);
        }

        /** Polls until {@code count} markers in all have arrived here (the test's timeout bounds the wait). */
        public void await(Client client, int count) {
            while (arrived.get() < count) {
                client.poll();
                Thread.onSpinWait();
            }
            if (!client.capabilities().orderedChannels()) {
                pollAWhile(client, 100);
            }
            if (arrived.get() != count) {
                throw new AssertionError(arrived.get() + " markers arrived, " + count + " were sent");
            }
        }
    }
}
