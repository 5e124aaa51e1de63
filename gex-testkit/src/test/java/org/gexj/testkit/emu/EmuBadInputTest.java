package org.gexj.testkit.emu;

import org.gexj.testkit.BadInputKit;

import java.util.Map;

/** Bad input on the public API over emu. */
class EmuBadInputTest extends BadInputKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }
}
