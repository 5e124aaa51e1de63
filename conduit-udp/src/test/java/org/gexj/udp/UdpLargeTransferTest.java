package org.gexj.udp;

import org.gexj.testkit.LargeTransferKit;

import java.util.Map;

/** Transfers past 2 GiB over udp. */
class UdpLargeTransferTest extends LargeTransferKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }
}
