package org.gexj.smp;

import org.gexj.testkit.BadInputKit;

import java.util.Map;

/** Bad input on the public API over smp, ranks as threads of one JVM. */
class SmpBadInputTest extends BadInputKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }
}
