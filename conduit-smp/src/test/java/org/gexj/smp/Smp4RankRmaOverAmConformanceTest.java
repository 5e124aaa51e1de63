package org.gexj.smp;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** RMA over AM conformance on smp, with 4 ranks wherever a test is written for any job size. */
class Smp4RankRmaOverAmConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp", "GEX_RMA_OVER_AM", "1");
    }

    @Override
    protected int ranks(int ranks) {
        return Math.max(ranks, 4);
    }
}
