package org.gexj.ofi;

import org.gexj.testkit.KitSetup;
import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/**
 * RMA conformance over ofi on shm, every rank a process started by gexrun, 4 ranks wherever a test is written for
 * any job size.
 */
class OfiShmGexrun4RankRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected KitSetup setup() {
        return KitSetup.gexrun(Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "shm"), 4);
    }
}
