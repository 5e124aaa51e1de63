package org.gexj.rdma.loopback;

import org.gexj.testkit.BarrierKit;

import java.util.Map;

/**
 * BarrierKit against the RDMA engine over the loopback NIC: one message per receive buffer (ibv's shape).
 */
class LoopbackSingleBarrierTest extends BarrierKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "rdma-loopback", LoopbackRdmaConduit.MULTI, "false");
    }
}
