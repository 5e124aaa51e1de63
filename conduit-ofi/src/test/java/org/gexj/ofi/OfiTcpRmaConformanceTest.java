package org.gexj.ofi;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** RMA conformance over ofi on tcp;ofi_rxm. */
class OfiTcpRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }
}
