package org.gexj.testkit.emu;

import org.gexj.Config;

/**
 * The {@code GEX_EMU_*} settings of one emu rank, read and range-checked once when the conduit opens (their meaning is
 * documented on {@link EmuConduit}). A bad value is an {@link IllegalArgumentException} naming the variable, the
 * value and the allowed range.
 *
 * @param frameLength   {@code GEX_EMU_FRAME}: largest frame, bytes
 * @param credits       {@code GEX_EMU_CREDITS}: send buffers per (sender, target, channel), RMA operations per
 *                      (initiator, target)
 * @param delay         {@code GEX_EMU_DELAY}: most polls an arrived item may be held back
 * @param immediateBits {@code GEX_EMU_IMM_BITS}: 32 or 64
 * @param seed          {@code GEX_EMU_SEED}: the job's seed, before it is mixed with the rank
 * @param duplicateTags {@code GEX_EMU_DUPLICATE_TAGS}: probability that a put-with-immediate is reported twice
 * @param hideSource    {@code GEX_EMU_HIDE_SOURCE}: report remote writes without their source, as verbs;ofi_rxm does
 * @param latencyUs     {@code GEX_EMU_LATENCY_US}: one-way wire latency, microseconds (0: items arrive at once)
 */
record EmuSettings(int frameLength, int credits, int delay, int immediateBits, long seed, double duplicateTags,
                   boolean hideSource, int latencyUs) {
    static final String FRAME = "GEX_EMU_FRAME";
    static final String CREDITS = "GEX_EMU_CREDITS";
    static final String DELAY = "GEX_EMU_DELAY";
    static final String IMM_BITS = "GEX_EMU_IMM_BITS";
    static final String SEED = "GEX_EMU_SEED";
    static final String DUPLICATE_TAGS = "GEX_EMU_DUPLICATE_TAGS";
    static final String HIDE_SOURCE = "GEX_EMU_HIDE_SOURCE";
    static final String LATENCY_US = "GEX_EMU_LATENCY_US";

    static final int DEFAULT_FRAME = 8192;
    /** The smallest frame {@link org.gexj.spi.Capabilities} accepts. */
    static final int MIN_FRAME = 1024;
    static final int MAX_FRAME = 1 << 20;
    static final int DEFAULT_CREDITS = 32;
    static final int MAX_CREDITS = 4096;
    static final int DEFAULT_DELAY = 4;
    static final int MAX_DELAY = 1000;
    /** One second: far above any network's one-way latency, far below the library's timeouts. */
    static final int MAX_LATENCY_US = 1_000_000;
    /** Any fixed value: runs without {@code GEX_EMU_SEED} repeat the same choices. */
    static final long DEFAULT_SEED = 0x6765_786a_656d_7521L;

    static EmuSettings from(Config config) {
        final int frame = config.getInt(FRAME, DEFAULT_FRAME, MIN_FRAME, MAX_FRAME);
        final int credits = config.getInt(CREDITS, DEFAULT_CREDITS, 1, MAX_CREDITS);
        final int delay = config.getInt(DELAY, DEFAULT_DELAY, 0, MAX_DELAY);
        final int bits = config.getInt(IMM_BITS, 64, 32, 64);
        if (bits != 32 && bits != 64) {
            throw new IllegalArgumentException(IMM_BITS + "=" + bits + " is neither 32 nor 64");
        }
        final long seed = config.getLong(SEED, DEFAULT_SEED, Long.MIN_VALUE, Long.MAX_VALUE);
        return new EmuSettings(frame, credits, delay, bits, seed, probability(config, DUPLICATE_TAGS),
            config.getBoolean(HIDE_SOURCE, false), config.getInt(LATENCY_US, 0, 0, MAX_LATENCY_US));
    }

    /** {@link Config} has no floating-point getter: the same checks, in the same words. */
    private static double probability(Config config, String key) {
        final String v = config.get(key, null);
        if (v == null) {
            return 0;
        }
        final double p;
        try {
            p = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + v + " is not a number; range [0, 1]");
        }
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException(key + "=" + v + " outside [0, 1]");
        }
        return p;
    }

    /**
     * This rank's stream of choices: the seed and the rank through a non-linear mix, so that ranks do not replay each
     * other's choices shifted by one (as {@code seed + rank * gamma} would with {@link java.util.SplittableRandom}).
     */
    long rankSeed(int rank) {
        long z = seed ^ (0x632B_E59B_D9B4_E019L * (rank + 1L));
        z = (z ^ (z >>> 33)) * 0xFF51_AFD7_ED55_8CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CE_B9FE_1A85_EC53L;
        return z ^ (z >>> 33);
    }

    /** The settings as variables, so that a failing run's output says how to replay it. */
    @Override
    public String toString() {
        return SEED + "=" + seed + " " + DELAY + "=" + delay + " " + CREDITS + "=" + credits + " " + FRAME + "="
            + frameLength + " " + IMM_BITS + "=" + immediateBits + " " + DUPLICATE_TAGS + "=" + duplicateTags + " "
            + HIDE_SOURCE + "=" + (hideSource ? 1 : 0) + " " + LATENCY_US + "=" + latencyUs;
    }
}
