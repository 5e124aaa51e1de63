package org.gexj.rdma.loopback;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/**
 * RmaConformanceKit against the RDMA engine over the loopback NIC: one message per receive buffer (ibv's shape),
 * registrations reached over AM (as ibv, whose NIC does not register them for peers).
 */
class LoopbackSingleRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "rdma-loopback", LoopbackRdmaConduit.MULTI, "false",
            LoopbackRdmaConduit.PEER_KEYS, "false");
    }
}
