package org.gexj.smp;

import org.gexj.testkit.RegisteredRmaKit;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Registered memory moved with Cross Memory Attach at every size ({@code GEX_SMP_CMA=on}, {@code GEX_SMP_CMA_MIN=0}):
 * the owner's refusals (closed, stale, out of range, read-only, an arena closed before a barrier) come from its
 * shared table, not its handlers.
 */
class SmpCmaRegisteredRmaTest extends RegisteredRmaKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp", "GEX_SMP_CMA", "on", "GEX_SMP_CMA_MIN", "0");
    }

    @Override
    protected boolean pullsRendezvous() {
        return true;
    }

    /** The kit's setting sends even a small registered put and get through CMA, not the rings. */
    @Test
    void smallRegisteredOperationsTakeCrossMemoryAttach() {
        final Map<String, Long> counters = SmpCmaTest.run(environment(), 64);
        assertEquals(3L, counters.get("smp.cma.puts"), counters.toString());
        assertEquals(3L, counters.get("smp.cma.gets"), counters.toString());
        assertEquals(2L * 3 * 64, counters.get("smp.cma.bytes"), counters.toString());
    }
}
