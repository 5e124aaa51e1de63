package org.gexj.udp;

import org.gexj.testkit.VisKit;

import java.util.Map;

/** Non-contiguous RMA over udp. */
class UdpVisTest extends VisKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }
}
