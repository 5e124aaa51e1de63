package org.gexj.rdma.loopback;

import org.gexj.testkit.RobustnessKit;

import java.util.Map;

/**
 * RobustnessKit against the RDMA engine over the loopback NIC: one message per receive buffer (ibv's shape).
 */
class LoopbackSingleRobustnessTest extends RobustnessKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "rdma-loopback", LoopbackRdmaConduit.MULTI, "false");
    }
}
