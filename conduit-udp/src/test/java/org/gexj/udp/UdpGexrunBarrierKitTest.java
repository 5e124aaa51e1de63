package org.gexj.udp;

import org.gexj.testkit.BarrierKit;

import java.util.Map;

/** The client barrier over udp, every rank a process started by gexrun, 1 to 5 ranks. */
class UdpGexrunBarrierKitTest extends BarrierKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }

    @Override
    protected Launch launch() {
        return Launch.GEXRUN;
    }

    @Override
    protected int phases() {
        return 300;
    }
}
