package org.gexj.internal;

import org.gexj.Config;
import org.gexj.spi.Conduit;

/**
 * How a thread waits inside GEX/J (barriers, events, a send waiting for room): spin with the CPU's pause hint ({@code
 * GEX_WAIT_SPINS}, default 1000, 21000 where the conduit does not yield, or 0 where the host's ranks share its cores),
 * then {@code sched_yield} ({@code GEX_WAIT_YIELDS}, default 20000, or 0 where the conduit gains nothing from them,
 * {@link Conduit#yieldsWhileWaiting}, and the cores are not shared), which is free while no other thread wants the
 * core, and only then park, from {@code GEX_WAIT_PARK_US} (default 10) doubling up to {@code GEX_WAIT_PARK_MAX_US}
 * (default 1000), because waking a parked core costs about 25 us on small VMs. The park is the conduit's
 * {@link Conduit#awaitActivity}, which may end early ({@link ConduitIdleStrategy}). Where a yield is not free (an
 * emulated guest, a core shared with a peer or the JIT) other counts may be faster: hence settable.
 *
 * @param spins     busy spins before yielding, [0, 10^9]
 * @param yields    yields before parking, [0, 10^9]
 * @param parkMinNs first park, ns
 * @param parkMaxNs longest park, ns
 */
public record WaitSettings(long spins, long yields, long parkMinNs, long parkMaxNs) {
    public static final String SPINS = "GEX_WAIT_SPINS";
    public static final String YIELDS = "GEX_WAIT_YIELDS";
    public static final String PARK = "GEX_WAIT_PARK_US";
    public static final String PARK_MAX = "GEX_WAIT_PARK_MAX_US";
    private static final long MAX_COUNT = 1_000_000_000L;
    private static final long DEFAULT_SPINS = 1000;
    private static final long DEFAULT_YIELDS = 20_000;
    private static final long MAX_PARK_US = 1_000_000L;

    /** The settings of {@code config}, each checked against its range (the exception names the bad value). */
    public static WaitSettings of(Config config) {
        return of(config, true);
    }

    /**
     * The settings of {@code config}, with no yields unless {@code GEX_WAIT_YIELDS} is given when the conduit's waits
     * gain nothing from them ({@link Conduit#yieldsWhileWaiting}).
     */
    public static WaitSettings of(Config config, boolean yieldByDefault) {
        return of(config, yieldByDefault, false);
    }

    /**
     * As {@link #of(Config, boolean)}, except where this host's ranks share its cores: then no spins unless {@code
     * GEX_WAIT_SPINS} is given, and yields whatever the conduit says. A spinning rank holds a core that the rank it
     * waits for needs, and a yield is what lets that one run (4 smp ranks on 2 cores: a reduce-to-all took 70 us with
     * 1000 spins, 2.6 with none), where a park costs a wake-up each time (4 ofi ranks: 110-140 us against 38-48 with
     * the yields). Where the conduit does not yield and the cores are not shared, it spins for its yields too ({@code
     * 1000 + 20000}), so that a waiting rank polls about as long before it parks as on the others: on ofi 1000 spins
     * (polls that enter the kernel) lasted 0.33-0.5 ms, shorter than a row of testlarge, so a rank serving a peer's
     * puts parked in mid-flood and each later packet paid a wake-up (PutNB 16 B-8 KiB: 7-9 us an operation against
     * 3.5-4.5 with 21000 spins).
     */
    public static WaitSettings of(Config config, boolean yieldByDefault, boolean sharedCores) {
        final long spins = config.getLong(SPINS, sharedCores ? 0 : yieldByDefault ? DEFAULT_SPINS
            : DEFAULT_SPINS + DEFAULT_YIELDS, 0, MAX_COUNT);
        final long yields = config.getLong(YIELDS, yieldByDefault || sharedCores ? DEFAULT_YIELDS : 0, 0, MAX_COUNT);
        final long parkMax = config.getLong(PARK_MAX, 1000, 1, MAX_PARK_US);
        final long park = config.getLong(PARK, Math.min(10, parkMax), 1, parkMax);
        return new WaitSettings(spins, yields, park * 1000, parkMax * 1000);
    }

    /**
     * A new idle strategy of these settings that parks in {@code conduit} (one per waiting thread: it keeps the
     * thread's back-off state).
     */
    public ConduitIdleStrategy newIdleStrategy(Conduit conduit) {
        return new ConduitIdleStrategy(conduit, this);
    }
}
