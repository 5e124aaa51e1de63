package org.gexj.udp;

import org.gexj.testkit.CollKit;

import java.util.Map;

/** Teams and collectives over udp. */
class UdpCollTest extends CollKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }
}
