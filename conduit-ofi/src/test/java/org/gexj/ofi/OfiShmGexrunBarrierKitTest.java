package org.gexj.ofi;

import org.gexj.testkit.BarrierKit;

import java.util.Map;

/**
 * The client barrier over ofi on shm, every rank a process started by gexrun (shm runs no kit in threads of one JVM), 1
 * to 5 ranks.
 */
class OfiShmGexrunBarrierKitTest extends BarrierKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "shm");
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
