package org.gexj.smp;

import org.gexj.testkit.ThreadsKit;

import java.util.Map;

/** Many threads per rank over smp, 2 ranks as threads of one JVM. */
class SmpThreadsTest extends ThreadsKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }
}
