package org.gexj.udp;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/** AM conformance over udp with 4 ranks wherever a test is written for any job size. */
class Udp4RankAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }

    @Override
    protected int ranks(int ranks) {
        return Math.max(ranks, 4);
    }
}
