package org.gexj.udp;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/**
 * AM conformance over udp, every rank a process started by gexrun, 4 ranks wherever a test is written for any job
 * size.
 */
class UdpGexrun4RankAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }

    @Override
    protected Launch launch() {
        return Launch.GEXRUN;
    }

    @Override
    protected int ranks(int ranks) {
        return Math.max(ranks, 4);
    }
}
