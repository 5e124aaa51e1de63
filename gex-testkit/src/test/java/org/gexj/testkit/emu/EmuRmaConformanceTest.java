package org.gexj.testkit.emu;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** RMA conformance over emu. Rma has no native-RMA engine yet, so this runs RMA over AM on emu's unordered frames. */
class EmuRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }
}
