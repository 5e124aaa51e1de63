package org.gexj.udp;

import org.gexj.testkit.BarrierKit;

import java.util.Map;

/** The client barrier (the core's dissemination barrier) over udp, threads of this JVM, 1 to 5 ranks. */
class UdpBarrierKitTest extends BarrierKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }

    @Override
    protected int phases() {
        return 300;
    }
}
