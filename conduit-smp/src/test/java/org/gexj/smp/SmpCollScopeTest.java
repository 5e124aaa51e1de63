package org.gexj.smp;

import org.gexj.testkit.CollScopeKit;

import java.util.Map;

/** Team-scoped AM and RMA, in-place reductions and one-rank teams on smp. */
class SmpCollScopeTest extends CollScopeKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }
}
