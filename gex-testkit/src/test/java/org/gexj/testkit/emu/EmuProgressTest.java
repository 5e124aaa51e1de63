package org.gexj.testkit.emu;

import org.gexj.testkit.ProgressKit;

import java.util.Map;

/** test() and nbiTest() make no progress over emu. */
class EmuProgressTest extends ProgressKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }
}
