package org.gexj.rdma.loopback;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/**
 * AmConformanceKit against the RDMA engine over the loopback NIC: one message per receive buffer (ibv's shape).
 */
class LoopbackSingleAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "rdma-loopback", LoopbackRdmaConduit.MULTI, "false");
    }
}
