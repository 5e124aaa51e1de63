package org.gexj.benchutil;

/**
 * How many iterations per size the GEX/J-only warm-up passes of testam and testsmall/testlarge run when
 * {@code -warmup} is not given: enough that the JIT has compiled the timed loops fully (C2) before the first timed
 * row, and no more than a network conduit needs, where each iteration costs 10 to 100 times as much.
 */
public final class WarmupIters {
    /** -warmup's value when none is given: {@link #forConduit} chooses. */
    public static final int BY_CONDUIT = -1;
    /**
     * On a cross-mapped conduit (smp), where an operation costs nanoseconds to a microsecond. With 1000, testsmall's
     * first sizes of each section still ran at C1's speed, 3-5 times slower, until C2 compiled the loop mid-section.
     */
    public static final int MEMORY = 10_000;
    /** Over a network conduit. */
    public static final int NETWORK = 1_000;
    /**
     * Short passes before a warm-up's long ones, so that each timed loop is called often enough for the JIT's last
     * tier: a loop runs once per size and section in a pass, and over a network conduit 3 passes of 1000 iterations
     * left udp's Medium ping-pong loop interpreted until testam's timed pass, whose first row (0 bytes, after the
     * warm-up's 64 KiB flood) took 7-10 us per round trip in place of 5.
     */
    public static final int PRIMING_PASSES = 50;

    private WarmupIters() {
    }

    /** @return {@code given}, or for {@link #BY_CONDUIT} {@link #MEMORY} or {@link #NETWORK} */
    public static int forConduit(int given, boolean crossMapped) {
        if (given != BY_CONDUIT) {
            return given;
        }
        return crossMapped ? MEMORY : NETWORK;
    }
}
