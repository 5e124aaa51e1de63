package org.gexj.smp;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** The RMA-over-AM reference (what conduits without native RMA use), forced on smp with the test switch. */
class SmpRmaOverAmConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp", "GEX_RMA_OVER_AM", "1");
    }
}
