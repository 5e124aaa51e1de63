package org.gexj.ofi;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/** AM conformance over ofi on tcp;ofi_rxm. */
class OfiTcpAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }
}
