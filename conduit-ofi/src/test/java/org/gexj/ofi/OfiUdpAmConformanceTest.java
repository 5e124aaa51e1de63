package org.gexj.ofi;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/** AM conformance over ofi on udp;ofi_rxd. */
class OfiUdpAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "udp;ofi_rxd");
    }
}
