package org.gexj.smp;

import org.gexj.testkit.AtomicKit;

import java.util.Map;

/** Remote atomics over AM (what conduits without cross-mapped memory use), forced on smp. */
class SmpAtomicOverAmTest extends AtomicKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp", "GEX_AD_OVER_AM", "1");
    }
}
