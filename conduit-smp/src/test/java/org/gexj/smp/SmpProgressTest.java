package org.gexj.smp;

import org.gexj.testkit.ProgressKit;

import java.util.Map;

/** test() and nbiTest() make no progress over smp. */
class SmpProgressTest extends ProgressKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }
}
