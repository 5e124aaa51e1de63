package org.gexj.udp;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/** AM conformance over udp, ranks as threads of one JVM. */
class UdpAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }
}
