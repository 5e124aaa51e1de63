package org.gexj.smp;

import org.gexj.testkit.RegisteredRmaKit;

import java.util.Map;

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
}
