package org.gexj.ofi;

import org.gexj.testkit.LargeTransferKit;

import java.util.Map;

/** Transfers past 2 GiB over ofi (tcp;ofi_rxm). */
class OfiTcpLargeTransferTest extends LargeTransferKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }
}
