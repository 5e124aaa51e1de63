package org.gexj.smp;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

class SmpRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }
}
