package org.gexj.smp;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

class SmpAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }
}
