package org.gexj.ofi;

import org.gexj.testkit.CollScopeKit;

import java.util.Map;

/** Team-scoped AM and RMA, in-place reductions and one-rank teams over ofi (tcp;ofi_rxm). */
class OfiTcpCollScopeTest extends CollScopeKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }
}
