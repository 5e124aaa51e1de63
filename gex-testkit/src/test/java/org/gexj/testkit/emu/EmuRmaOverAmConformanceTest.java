package org.gexj.testkit.emu;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** RMA over AM (the reference engine) on emu, beside the conduit's native RMA in {@link EmuRmaConformanceTest}. */
class EmuRmaOverAmConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu", "GEX_RMA_OVER_AM", "1");
    }
}
