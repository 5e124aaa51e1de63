package org.gexj.ofi;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** RMA conformance over ofi on udp;ofi_rxd. */
class OfiUdpRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "udp;ofi_rxd");
    }
}
