package org.gexj.rdma.loopback;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/**
 * RmaConformanceKit against the RDMA engine over the loopback NIC: many messages per receive buffer (ofi's shape),
 * registrations reached by key (ofi's {@code GEX_OFI_PEER_KEYS} on a provider that refuses alone).
 */
class LoopbackMultiRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "rdma-loopback", LoopbackRdmaConduit.MULTI, "true");
    }

    @Override
    protected boolean keyedRegistrations() {
        return true;
    }
}
