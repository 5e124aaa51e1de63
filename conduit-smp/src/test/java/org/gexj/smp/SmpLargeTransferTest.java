package org.gexj.smp;

import org.gexj.testkit.LargeTransferKit;

import java.util.Map;

/** Transfers past 2 GiB over smp. */
class SmpLargeTransferTest extends LargeTransferKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }
}
