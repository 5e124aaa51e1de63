package org.gexj.ofi;

import org.gexj.testkit.RobustnessKit;

import java.util.Map;

/**
 * Misuse and failure handling over ofi on tcp;ofi_rxm, 2 ranks, threads of this JVM (gexrun and 4 ranks: {@link
 * OfiTcpGexrun4RankRobustnessTest}).
 */
class OfiTcpRobustnessTest extends RobustnessKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }
}
