package org.gexj.udp;

import org.gexj.testkit.RmaConformanceKit;

import java.util.Map;

/** RMA conformance over udp, every rank a process started by gexrun. */
class UdpGexrunRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }

    @Override
    protected Launch launch() {
        return Launch.GEXRUN;
    }
}
