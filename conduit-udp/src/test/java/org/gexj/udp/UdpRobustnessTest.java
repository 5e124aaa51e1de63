package org.gexj.udp;

import org.gexj.testkit.RobustnessKit;

import java.util.Map;

/**
 * Misuse and failure handling over udp, 2 ranks, threads of this JVM (gexrun and 4 ranks: {@link
 * UdpGexrun4RankRobustnessTest}).
 */
class UdpRobustnessTest extends RobustnessKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }
}
