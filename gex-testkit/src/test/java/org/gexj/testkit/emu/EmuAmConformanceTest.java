package org.gexj.testkit.emu;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/** AM conformance over emu: unordered delivery, pooled send buffers, the core's dissemination barrier, Long payloads
 * above the packed limit by target-side reassembly (the default where remote writes carry immediate data). */
class EmuAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }
}
