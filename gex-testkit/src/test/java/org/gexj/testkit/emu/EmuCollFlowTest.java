package org.gexj.testkit.emu;

import org.gexj.testkit.CollFlowKit;

import java.util.Map;

/** The collectives' flow control over emu, which reorders and delays messages. */
class EmuCollFlowTest extends CollFlowKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }
}
