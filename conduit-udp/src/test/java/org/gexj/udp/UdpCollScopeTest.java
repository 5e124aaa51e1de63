package org.gexj.udp;

import org.gexj.testkit.CollScopeKit;

import java.util.Map;

/** Team-scoped AM and RMA, in-place reductions and one-rank teams over udp. */
class UdpCollScopeTest extends CollScopeKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }
}
