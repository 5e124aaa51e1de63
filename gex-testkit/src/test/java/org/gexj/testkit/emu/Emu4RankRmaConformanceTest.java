package org.gexj.testkit.emu;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** RMA conformance over emu's native RMA, with 4 ranks wherever a test is written for any job size. */
class Emu4RankRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }

    @Override
    protected int ranks(int ranks) {
        return Math.max(ranks, 4);
    }
}
