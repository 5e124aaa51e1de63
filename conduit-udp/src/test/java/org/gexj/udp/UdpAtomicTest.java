package org.gexj.udp;

import org.gexj.testkit.AtomicKit;

import java.util.Map;

/** Remote atomics over udp. */
class UdpAtomicTest extends AtomicKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }
}
