package org.gexj.ofi;

import org.gexj.testkit.BarrierKit;

import java.util.Map;

/** The client barrier over ofi on tcp;ofi_rxm, every rank a process started by gexrun, 1 to 5 ranks. */
class OfiTcpGexrunBarrierKitTest extends BarrierKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }

    @Override
    protected Launch launch() {
        return Launch.GEXRUN;
    }

    @Override
    protected int phases() {
        return 300;
    }
}
