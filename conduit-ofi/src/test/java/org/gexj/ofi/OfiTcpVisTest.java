package org.gexj.ofi;

import org.gexj.testkit.VisKit;

import java.util.Map;

/** Non-contiguous RMA over ofi on tcp;ofi_rxm. */
class OfiTcpVisTest extends VisKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }
}
