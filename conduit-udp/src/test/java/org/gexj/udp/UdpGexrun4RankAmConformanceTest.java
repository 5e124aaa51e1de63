package org.gexj.udp;

import org.gexj.testkit.AmConformanceKit;
import org.gexj.testkit.KitSetup;

import java.util.Map;

/**
 * AM conformance over udp, every rank a process started by gexrun, 4 ranks wherever a test is written for any job
 * size.
 */
class UdpGexrun4RankAmConformanceTest extends AmConformanceKit {
    @Override
    protected KitSetup setup() {
        return KitSetup.gexrun(Map.of("GEX_CONDUIT", "udp"), 4);
    }
}
