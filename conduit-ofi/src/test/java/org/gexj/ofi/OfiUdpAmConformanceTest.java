package org.gexj.ofi;

import org.gexj.testkit.AmConformanceKit;

import java.time.Duration;
import java.util.Map;

/** AM conformance over ofi on udp;ofi_rxd with AM Long above 4 KiB by target-side reassembly. */
class OfiUdpAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "udp;ofi_rxd", "GEX_AMLONG_PROTOCOL", "reassembly");
    }

    /** udp;ofi_rxd is reliable datagrams in software: the kit's 360 000-message flood takes minutes on 2 cores. */
    @Override
    protected Duration timeout() {
        return Duration.ofMinutes(5);
    }
}
