package org.gexj.ofi;

import org.gexj.testkit.AtomicKit;

import java.util.Map;

/** Remote atomics over ofi on tcp;ofi_rxm. */
class OfiTcpAtomicTest extends AtomicKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }
}
