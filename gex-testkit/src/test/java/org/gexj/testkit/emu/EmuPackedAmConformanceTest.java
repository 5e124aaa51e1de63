package org.gexj.testkit.emu;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/** AM conformance over emu with every Long payload above the packed limit sent packed. */
class EmuPackedAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu", "GEX_AMLONG_PROTOCOL", "packed");
    }
}
