package org.gexj.rdma.loopback;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/**
 * RmaConformanceKit against the RDMA engine over the loopback NIC, one message per receive buffer, posted per
 * connected peer (ibv's on-demand shape), registrations reached over AM: the fabric fails the job if a rank sends
 * before its peer posted them.
 */
class LoopbackOnDemandRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "rdma-loopback", LoopbackRdmaConduit.MULTI, "false",
            LoopbackRdmaConduit.ONDEMAND, "true", LoopbackRdmaConduit.PEER_KEYS, "false");
    }
}
