package org.gexj.udp;

import org.gexj.testkit.CollFlowKit;

import java.util.Map;

/** The collectives' flow control over udp. */
class UdpCollFlowTest extends CollFlowKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }
}
