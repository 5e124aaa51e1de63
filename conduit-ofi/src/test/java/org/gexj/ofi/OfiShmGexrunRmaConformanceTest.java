package org.gexj.ofi;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** RMA conformance over ofi on shm, 2 ranks, every rank a process started by gexrun. */
class OfiShmGexrunRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "shm");
    }

    @Override
    protected Launch launch() {
        return Launch.GEXRUN;
    }
}
