package org.gexj.smp;

import org.gexj.testkit.BarrierKit;

import java.util.Map;

/** The client barrier on smp with the core's dissemination barrier over frames, which network conduits get. */
class SmpAmBarrierKitTest extends BarrierKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp", "GEX_BARRIER", "am");
    }
}
