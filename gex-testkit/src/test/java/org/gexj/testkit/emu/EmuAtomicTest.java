package org.gexj.testkit.emu;

import org.gexj.testkit.AtomicKit;

import java.util.Map;

/** Remote atomics over emu, which reorders and delays messages. */
class EmuAtomicTest extends AtomicKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }
}
