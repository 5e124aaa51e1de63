package org.gexj.udp;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** RMA conformance over udp with 4 ranks. */
class Udp4RankRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }

    @Override
    protected int ranks(int ranks) {
        return Math.max(ranks, 4);
    }
}
