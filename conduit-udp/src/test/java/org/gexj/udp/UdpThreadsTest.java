package org.gexj.udp;

import org.gexj.testkit.ThreadsKit;

import java.util.Map;

/** Many threads per rank over udp, 2 ranks as threads of one JVM. */
class UdpThreadsTest extends ThreadsKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }
}
