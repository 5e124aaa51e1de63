package org.gexj.ofi;

import org.gexj.testkit.CollKit;

import java.util.Map;

/** Teams and collectives over ofi on tcp;ofi_rxm. */
class OfiTcpCollTest extends CollKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }
}
