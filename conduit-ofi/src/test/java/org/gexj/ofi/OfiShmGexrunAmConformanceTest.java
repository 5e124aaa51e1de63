package org.gexj.ofi;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/**
 * AM conformance over ofi on shm, 2 ranks, every rank a process started by gexrun (the only way shm runs the AM
 * kit: its provider state per process does not survive dozens of endpoints in one JVM).
 */
class OfiShmGexrunAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "shm");
    }

    @Override
    protected Launch launch() {
        return Launch.GEXRUN;
    }
}
