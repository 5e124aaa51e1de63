package org.gexj.rdma.loopback;

import org.gexj.testkit.BarrierKit;

import java.util.Map;

/**
 * BarrierKit against the RDMA engine over the loopback NIC: many messages per receive buffer (ofi's shape).
 */
class LoopbackMultiBarrierTest extends BarrierKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "rdma-loopback", LoopbackRdmaConduit.MULTI, "true");
    }
}
