package org.gexj.ofi;

import org.gexj.testkit.LibraryHandlersKit;

import java.util.Map;

/** The library's handlers over ofi on tcp;ofi_rxm (the kit forces RMA over AM). */
class OfiTcpLibraryHandlersTest extends LibraryHandlersKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }
}
