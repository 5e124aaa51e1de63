package org.gexj.testkit.emu;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** RMA conformance over emu's native RMA with a 50 us wire latency: completions come a round trip after the call. */
class EmuLatencyRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu", "GEX_EMU_LATENCY_US", "50");
    }
}
