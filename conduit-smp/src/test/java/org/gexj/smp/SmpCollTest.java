package org.gexj.smp;

import org.gexj.testkit.CollKit;

import java.util.Map;

/** Teams and collectives over smp. */
class SmpCollTest extends CollKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }
}
