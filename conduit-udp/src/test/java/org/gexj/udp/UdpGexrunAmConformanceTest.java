package org.gexj.udp;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/** AM conformance over udp, every rank a process started by gexrun. */
class UdpGexrunAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }

    @Override
    protected Launch launch() {
        return Launch.GEXRUN;
    }
}
