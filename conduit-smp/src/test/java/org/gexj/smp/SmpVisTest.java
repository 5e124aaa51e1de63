package org.gexj.smp;

import org.gexj.testkit.VisKit;

import java.util.Map;

/** Non-contiguous RMA over smp. */
class SmpVisTest extends VisKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }
}
