package org.gexj.ofi;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/**
 * AM conformance over ofi on tcp;ofi_rxm using 4 bytes of remote CQ data, as verbs offers: every Long travels by
 * target-side reassembly, and the tag alone tells the target where the payload came from.
 */
class OfiTcpNarrowCqDataAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm", "GEX_OFI_CQ_DATA", "4",
            "GEX_AMLONG_PROTOCOL", "reassembly", "GEX_AMLONG_PACKED_MAX", "0");
    }
}
