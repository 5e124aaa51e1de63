package org.gexj.testkit;

import java.util.Map;

/**
 * How a kit subclass runs its jobs, named in one override ({@link ConduitKit#setup()}) instead of three
 * ({@code environment()}, {@code launch()}, {@code ranks(int)}): so test classes of different kits that run the same
 * way (e.g. udp's AM, RMA and robustness kits, each through gexrun with 4 ranks) say it in the same one line.
 */
public final class KitSetup {
    private final Map<String, String> environment;
    private final ConduitKit.Launch launch;
    private final int minRanks;

    private KitSetup(Map<String, String> environment, ConduitKit.Launch launch, int minRanks) {
        if (minRanks < 2) {
            throw new IllegalArgumentException("minRanks " + minRanks + " is not a job of 2 ranks or more");
        }
        this.environment = Map.copyOf(environment);
        this.launch = launch;
        this.minRanks = minRanks;
    }

    /**
     * Every rank a process started by gexrun, with {@code environment} selecting the conduit, and at least
     * {@code minRanks} ranks wherever a test is written for any job size (tests of an exact size keep theirs).
     */
    public static KitSetup gexrun(Map<String, String> environment, int minRanks) {
        return new KitSetup(environment, ConduitKit.Launch.GEXRUN, minRanks);
    }

    Map<String, String> environment() {
        return environment;
    }

    ConduitKit.Launch launch() {
        return launch;
    }

    /** The job size for a test written for {@code ranks} (or for what the hosts made of it). */
    int ranks(int ranks) {
        return Math.max(ranks, minRanks);
    }
}
