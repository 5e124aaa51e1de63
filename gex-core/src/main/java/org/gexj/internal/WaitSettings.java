package org.gexj.internal;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.gexj.Config;

/**
 * How a thread waits inside GEX/J (barriers, events, a send waiting for room): spin, then yield, then park.
 * {@code GEX_WAIT=SPINS,YIELDS,PARK_MIN_US,PARK_MAX_US}, default {@value #DEFAULT}: spin with the CPU's pause
 * hint, then {@code sched_yield}, which is free while no other thread wants the core, and park only after about
 * 10 ms of nothing, because waking a parked core costs about 25 us on small VMs. Where a yield is not free (an
 * emulated guest, a core shared with the peer) more spins and fewer yields can be faster: hence settable.
 *
 * @param spins      busy spins before yielding, [0, 10^9]
 * @param yields     yields before parking, [0, 10^9]
 * @param parkMinNs  first park, ns, [1000, parkMaxNs]
 * @param parkMaxNs  longest park, ns, [parkMinNs, 10^9]
 */
public record WaitSettings(long spins, long yields, long parkMinNs, long parkMaxNs) {

    public static final String KEY = "GEX_WAIT";
    public static final String DEFAULT = "1000,20000,10,1000";
    private static final long MAX_COUNT = 1_000_000_000L;

    public WaitSettings {
        check("SPINS", spins, 0, MAX_COUNT);
        check("YIELDS", yields, 0, MAX_COUNT);
        check("PARK_MAX_US", parkMaxNs / 1000, 1, MAX_COUNT / 1000);
        check("PARK_MIN_US", parkMinNs / 1000, 1, parkMaxNs / 1000);
    }

    /** The value of {@code GEX_WAIT} in {@code config}, or the default. */
    public static WaitSettings of(Config config) {
        return parse(config.get(KEY, DEFAULT));
    }

    /** Parses {@code SPINS,YIELDS,PARK_MIN_US,PARK_MAX_US}. @throws IllegalArgumentException naming what is wrong */
    public static WaitSettings parse(String value) {
        final String[] parts = value.split(",", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException(KEY + "=" + value + ": expected SPINS,YIELDS,PARK_MIN_US,PARK_MAX_US"
                + " (4 numbers), e.g. " + DEFAULT);
        }
        final long[] n = new long[4];
        for (int i = 0; i < 4; i++) {
            try {
                n[i] = Long.parseLong(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(KEY + "=" + value + ": '" + parts[i] + "' is not a number", e);
            }
        }
        try {
            return new WaitSettings(n[0], n[1], n[2] * 1000, n[3] * 1000);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(KEY + "=" + value + ": " + e.getMessage(), e);
        }
    }

    /** A new idle strategy of these settings (one per waiting thread: it keeps the thread's back-off state). */
    public BackoffIdleStrategy newIdleStrategy() {
        return new BackoffIdleStrategy(spins, yields, parkMinNs, parkMaxNs);
    }

    private static void check(String what, long v, long min, long max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(what + " " + v + " outside [" + min + ", " + max + "]");
        }
    }
}
