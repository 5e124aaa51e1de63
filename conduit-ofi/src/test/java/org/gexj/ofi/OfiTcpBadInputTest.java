package org.gexj.ofi;

import org.gexj.testkit.BadInputKit;

import java.util.Map;

/** Bad input on the public API over ofi on tcp;ofi_rxm, ranks as threads of one JVM. */
class OfiTcpBadInputTest extends BadInputKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }
}
