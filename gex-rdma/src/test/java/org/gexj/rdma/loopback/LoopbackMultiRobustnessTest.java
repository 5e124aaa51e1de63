package org.gexj.rdma.loopback;

import org.gexj.testkit.RobustnessKit;

import java.util.Map;

/**
 * RobustnessKit against the RDMA engine over the loopback NIC: many messages per receive buffer (ofi's shape).
 */
class LoopbackMultiRobustnessTest extends RobustnessKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "rdma-loopback", LoopbackRdmaConduit.MULTI, "true");
    }
}
