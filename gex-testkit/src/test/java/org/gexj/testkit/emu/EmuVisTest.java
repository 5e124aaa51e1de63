package org.gexj.testkit.emu;

import org.gexj.testkit.VisKit;

import java.util.Map;

/** Non-contiguous RMA over emu, which reorders and delays messages. */
class EmuVisTest extends VisKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }
}
