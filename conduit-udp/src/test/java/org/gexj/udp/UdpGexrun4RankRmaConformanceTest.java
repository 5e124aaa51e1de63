package org.gexj.udp;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** RMA conformance over udp, every rank a process started by gexrun, 4 ranks. */
class UdpGexrun4RankRmaConformanceTest extends RmaConformanceKit {
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
