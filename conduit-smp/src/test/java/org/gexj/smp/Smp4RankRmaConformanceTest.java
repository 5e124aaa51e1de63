package org.gexj.smp;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** RMA conformance over smp, with 4 ranks wherever a test is written for any job size. */
class Smp4RankRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }

    @Override
    protected int ranks(int ranks) {
        return Math.max(ranks, 4);
    }
}
