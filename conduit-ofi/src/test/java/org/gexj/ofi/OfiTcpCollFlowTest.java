package org.gexj.ofi;

import org.gexj.testkit.CollFlowKit;

import java.util.Map;

/** The collectives' flow control over ofi on tcp;ofi_rxm. */
class OfiTcpCollFlowTest extends CollFlowKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }
}
