package org.gexj.smp;

import org.gexj.testkit.CollFlowKit;

import java.util.Map;

/** The collectives' flow control over smp. */
class SmpCollFlowTest extends CollFlowKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }
}
