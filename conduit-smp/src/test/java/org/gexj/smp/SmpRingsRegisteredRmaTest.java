package org.gexj.smp;

import org.gexj.testkit.RegisteredRmaKit;

import java.util.Map;

/**
 * Registered memory moved through the rings instead of Cross Memory Attach ({@code GEX_SMP_CMA=off}): the fallback
 * where the kernel forbids it, forced. The same kit passes either way; {@link SmpCmaTest} tells which path moved.
 */
class SmpRingsRegisteredRmaTest extends RegisteredRmaKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp", "GEX_SMP_CMA", "off");
    }
}
