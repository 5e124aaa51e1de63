package org.gexj.smp;

import org.gexj.testkit.RobustnessKit;

import java.util.Map;

class SmpRobustnessTest extends RobustnessKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }
}
