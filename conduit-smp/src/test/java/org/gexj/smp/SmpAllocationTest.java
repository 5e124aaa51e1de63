package org.gexj.smp;

import org.gexj.testkit.AllocationKit;

import java.util.Map;
import java.util.Set;

/**
 * The smp conduit's data path allocates nothing: every AM form and RMA completion style over cross-mapped segments,
 * and RMA over AM (see {@link AllocationKit}). Memory copies are cheap, so the windows are long.
 */
class SmpAllocationTest extends AllocationKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }

    /** smp cross-maps segments and copies every Long itself, whatever the Long protocol setting says. */
    @Override
    protected Set<Run> refusedRuns() {
        return Set.of(Run.REASSEMBLY, Run.PUT_SYNC_SEND);
    }

    @Override
    protected int measured() {
        return 100_000;
    }

    /** Enough for the JIT to compile the path before it is measured. */
    @Override
    protected int pathWarmup() {
        return 30_000;
    }
}
