package org.gexj.ofi;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/**
 * AM conformance over ofi on shm, every rank a process started by gexrun, 4 ranks wherever a test is written for
 * any job size.
 */
class OfiShmGexrun4RankAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "shm");
    }

    @Override
    protected Launch launch() {
        return Launch.GEXRUN;
    }

    @Override
    protected int ranks(int ranks) {
        return Math.max(ranks, 4);
    }
}
