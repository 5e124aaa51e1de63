package org.gexj.smp;

import org.gexj.testkit.BarrierKit;

import java.util.Map;

/** The client barrier on smp with the conduit's shared-memory barrier. */
class SmpBarrierKitTest extends BarrierKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }
}
