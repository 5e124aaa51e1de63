package org.gexj.ofi;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/** AM conformance over ofi on tcp;ofi_rxm, 2 ranks, every rank a process started by gexrun. */
class OfiTcpGexrunAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }

    @Override
    protected Launch launch() {
        return Launch.GEXRUN;
    }
}
