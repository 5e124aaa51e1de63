package org.gexj.rdma.loopback;

import org.gexj.testkit.BarrierKit;

import java.util.Map;

/**
 * BarrierKit against the RDMA engine over the loopback NIC, one message per receive buffer, posted per
 * connected peer (ibv's on-demand shape): the fabric fails the job if a rank sends before its peer posted them.
 */
class LoopbackOnDemandBarrierTest extends BarrierKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "rdma-loopback", LoopbackRdmaConduit.MULTI, "false",
            LoopbackRdmaConduit.ONDEMAND, "true");
    }
}
