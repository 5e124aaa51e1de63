package org.gexj.testkit.emu;

import org.gexj.testkit.CollKit;

import java.util.Map;

/** Teams and collectives over emu, which reorders and delays messages. */
class EmuCollTest extends CollKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }
}
