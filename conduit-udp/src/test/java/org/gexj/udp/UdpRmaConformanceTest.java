package org.gexj.udp;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** RMA conformance over udp */
class UdpRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }
}
