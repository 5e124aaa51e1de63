package org.gexj.ofi;

import org.gexj.testkit.RobustnessKit;

import java.util.Map;

/**
 * Misuse and failure handling over ofi on tcp;ofi_rxm, every rank a process started by gexrun, 4 ranks wherever a test
 * is written for any job size (2 where its roles are).
 */
class OfiTcpGexrun4RankRobustnessTest extends RobustnessKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
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
