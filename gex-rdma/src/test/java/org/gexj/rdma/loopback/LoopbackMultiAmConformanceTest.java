package org.gexj.rdma.loopback;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/**
 * AmConformanceKit against the RDMA engine over the loopback NIC: many messages per receive buffer (ofi's shape).
 */
class LoopbackMultiAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "rdma-loopback", LoopbackRdmaConduit.MULTI, "true");
    }
}
