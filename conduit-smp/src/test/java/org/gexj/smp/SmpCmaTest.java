package org.gexj.smp;

import org.gexj.testkit.RegisteredRoundTrips;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Which path moves registered memory on smp: Cross Memory Attach by default (one copy, counted by
 * {@code smp.cma.*}), the rings with {@code GEX_SMP_CMA=off}; the bytes are the same.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SmpCmaTest {
    private static final int BYTES = 1 << 20;
    private static final int ROUNDS = 3;

    @Test
    void crossMemoryAttachMovesRegisteredMemoryByDefault() {
        final Map<String, Long> counters = run(Map.of("GEX_CONDUIT", "smp", "GEX_SMP_CMA", "auto"), BYTES);
        assertEquals(ROUNDS, counters.get("smp.cma.puts"), counters.toString());
        assertEquals(ROUNDS, counters.get("smp.cma.gets"), counters.toString());
        assertEquals(2L * ROUNDS * BYTES, counters.get("smp.cma.bytes"), counters.toString());
    }

    @Test
    void offMovesItThroughTheRings() {
        final Map<String, Long> counters = run(Map.of("GEX_CONDUIT", "smp", "GEX_SMP_CMA", "off"), BYTES);
        assertEquals(0, counters.get("smp.cma.puts"), counters.toString());
        assertEquals(0, counters.get("smp.cma.bytes"), counters.toString());
    }

    /** Rank 0's conduit counters after {@link #ROUNDS} registered round trips of {@code bytes} to rank 1. */
    static Map<String, Long> run(Map<String, String> environment, int bytes) {
        return RegisteredRoundTrips.run(environment, bytes, ROUNDS).counters();
    }
}
