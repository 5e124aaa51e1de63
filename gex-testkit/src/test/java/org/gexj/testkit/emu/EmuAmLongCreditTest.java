package org.gexj.testkit.emu;

import org.gexj.testkit.AmLongCreditKit;

import java.util.Map;

/** Refused AM Longs over emu, whose Long payloads above the packed limit are reassembled at the target. */
class EmuAmLongCreditTest extends AmLongCreditKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }
}
