package org.gexj.testkit.emu;

import org.gexj.testkit.BarrierKit;

import java.util.Map;

/** The core's dissemination barrier (emu has none of its own) under unordered, delayed delivery. */
class EmuBarrierTest extends BarrierKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }
}
