package org.gexj.testkit.emu;

import org.gexj.testkit.RobustnessKit;

import java.util.Map;

/** Misuse and failure handling over emu. */
class EmuRobustnessTest extends RobustnessKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }
}
