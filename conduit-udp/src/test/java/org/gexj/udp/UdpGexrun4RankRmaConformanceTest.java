package org.gexj.udp;

import org.gexj.testkit.KitSetup;
import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** RMA conformance over udp, every rank a process started by gexrun, 4 ranks. */
class UdpGexrun4RankRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected KitSetup setup() {
        return KitSetup.gexrun(Map.of("GEX_CONDUIT", "udp"), 4);
    }
}
