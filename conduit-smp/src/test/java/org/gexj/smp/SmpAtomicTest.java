package org.gexj.smp;

import org.gexj.testkit.AtomicKit;

import java.util.Map;

/** Remote atomics over smp: the CPU's atomics on cross-mapped segments. */
class SmpAtomicTest extends AtomicKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }
}
