package org.gexj.udp;

import org.gexj.testkit.LargeTransferKit;

import java.util.Map;

/** Transfers past 2 GiB over udp, whose AM Long is at most 1 GiB (one reliable frame): a larger one is refused. */
class UdpLargeTransferTest extends LargeTransferKit {
    @Override
    protected boolean longsPastTwoGiB() {
        return false;
    }

    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }
}
