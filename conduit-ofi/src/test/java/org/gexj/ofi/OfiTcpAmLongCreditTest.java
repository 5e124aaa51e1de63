package org.gexj.ofi;

import org.gexj.testkit.AmLongCreditKit;

import java.util.Map;

/** Refused AM Longs over ofi on tcp;ofi_rxm, whose Longs above the packed limit are reassembled at the target. */
class OfiTcpAmLongCreditTest extends AmLongCreditKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }
}
