package org.gexj.testkit.emu;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/** AM conformance over emu, Long payloads packed, with 4 ranks wherever a test is written for any job size. */
class Emu4RankPackedAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu", "GEX_AMLONG_PROTOCOL", "packed");
    }

    @Override
    protected int ranks(int ranks) {
        return Math.max(ranks, 4);
    }
}
