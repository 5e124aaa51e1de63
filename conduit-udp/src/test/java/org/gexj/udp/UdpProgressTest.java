package org.gexj.udp;

import org.gexj.testkit.ProgressKit;

import java.util.Map;

/** test() and nbiTest() make no progress over udp. */
class UdpProgressTest extends ProgressKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }
}
