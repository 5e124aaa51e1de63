package org.gexj.ofi;

import org.gexj.testkit.BarrierKit;

import java.util.Map;

/** The client barrier (the core's dissemination barrier) over ofi on tcp;ofi_rxm, threads of this JVM, 1 to 5 ranks. */
class OfiTcpBarrierKitTest extends BarrierKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }

    @Override
    protected int phases() {
        return 300;
    }
}
