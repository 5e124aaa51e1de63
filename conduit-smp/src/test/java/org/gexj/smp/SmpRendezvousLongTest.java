package org.gexj.smp;

import org.gexj.testkit.RendezvousLongKit;

import java.util.Map;

/** The rendezvous AM Long on smp, pulled with Cross Memory Attach ({@link RendezvousLongKit}). */
class SmpRendezvousLongTest extends RendezvousLongKit {
    @Override
    protected Map<String, String> conduit() {
        return Map.of("GEX_CONDUIT", "smp", "GEX_SMP_CMA", "on");
    }

    @Override
    protected String pullCounter() {
        return "smp.cma.gets";
    }
}
