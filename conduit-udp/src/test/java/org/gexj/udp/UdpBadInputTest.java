package org.gexj.udp;

import org.gexj.testkit.BadInputKit;

import java.util.Map;

/** Bad input on the public API over udp, ranks as threads of one JVM. */
class UdpBadInputTest extends BadInputKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }
}
