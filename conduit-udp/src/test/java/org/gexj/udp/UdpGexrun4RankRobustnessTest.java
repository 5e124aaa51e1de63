package org.gexj.udp;

import org.gexj.testkit.KitSetup;
import org.gexj.testkit.RobustnessKit;

import java.util.Map;

/**
 * Misuse and failure handling over udp, every rank a process started by gexrun, 4 ranks wherever a test is written for
 * any job size (2 where its roles are).
 */
class UdpGexrun4RankRobustnessTest extends RobustnessKit {
    @Override
    protected KitSetup setup() {
        return KitSetup.gexrun(Map.of("GEX_CONDUIT", "udp"), 4);
    }
}
