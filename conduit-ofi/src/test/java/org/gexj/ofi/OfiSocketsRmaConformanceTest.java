package org.gexj.ofi;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/**
 * RMA, registered memory and PWC conformance over ofi on the sockets provider, where registrations are reached by RDMA
 * with their keys by default ({@link OfiSettings#REFUSING_PROVIDERS}).
 */
class OfiSocketsRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "sockets");
    }

    @Override
    protected boolean keyedRegistrations() {
        return true;
    }
}
