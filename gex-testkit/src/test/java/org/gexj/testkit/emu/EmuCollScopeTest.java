package org.gexj.testkit.emu;

import org.gexj.testkit.CollScopeKit;

import java.util.Map;

/** Team-scoped AM and RMA, in-place reductions and one-rank teams on emu. */
class EmuCollScopeTest extends CollScopeKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }
}
