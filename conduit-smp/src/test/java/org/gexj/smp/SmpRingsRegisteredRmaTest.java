package org.gexj.smp;

import org.gexj.testkit.RegisteredRmaKit;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Registered memory moved through the rings instead of Cross Memory Attach ({@code GEX_SMP_CMA=off}): the fallback
 * where the kernel forbids it, forced. The same kit passes either way; {@link SmpCmaTest} tells which path moved.
 */
class SmpRingsRegisteredRmaTest extends RegisteredRmaKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp", "GEX_SMP_CMA", "off");
    }

    /** The kit's setting keeps every registered operation, even a large one, off CMA. */
    @Test
    void registeredOperationsTakeTheRings() {
        final Map<String, Long> counters = SmpCmaTest.run(environment(), 1 << 20);
        assertEquals(0L, counters.get("smp.cma.puts"), counters.toString());
        assertEquals(0L, counters.get("smp.cma.gets"), counters.toString());
        assertEquals(0L, counters.get("smp.cma.bytes"), counters.toString());
    }
}
