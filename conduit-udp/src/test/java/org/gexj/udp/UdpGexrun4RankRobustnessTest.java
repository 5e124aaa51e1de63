package org.gexj.udp;

import org.gexj.testkit.RobustnessKit;

import java.util.Map;

/**
 * Misuse and failure handling over udp, every rank a process started by gexrun, 4 ranks wherever a test is written for
 * any job size (2 where its roles are).
 */
class UdpGexrun4RankRobustnessTest extends RobustnessKit {
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
