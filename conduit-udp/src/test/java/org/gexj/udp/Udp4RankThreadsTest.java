package org.gexj.udp;

import org.gexj.testkit.ThreadsKit;

import java.util.Map;

/** Many threads per rank over udp, 4 ranks as threads of one JVM. */
class Udp4RankThreadsTest extends ThreadsKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }

    @Override
    protected int ranks(int ranks) {
        return Math.max(ranks, 4);
    }
}
