package org.gexj.ofi;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** RMA conformance over ofi on tcp;ofi_rxm, 2 ranks, every rank a process started by gexrun. */
class OfiTcpGexrunRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }

    @Override
    protected Launch launch() {
        return Launch.GEXRUN;
    }
}
