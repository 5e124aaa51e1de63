package org.gexj.testkit.emu;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/**
 * AM conformance over emu with a 50 us wire latency ({@code GEX_EMU_LATENCY_US}): Longs by target-side reassembly,
 * whose payload and envelope race over the wire, and every completion a round trip late.
 */
class EmuLatencyAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu", "GEX_EMU_LATENCY_US", "50");
    }
}
