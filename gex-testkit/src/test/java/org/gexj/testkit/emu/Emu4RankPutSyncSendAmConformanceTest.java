package org.gexj.testkit.emu;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/** AM conformance over emu, Long payloads put-sync-send, with 4 ranks wherever a test is written for any job size. */
class Emu4RankPutSyncSendAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu", "GEX_AMLONG_PROTOCOL", "putsyncsend");
    }

    @Override
    protected int ranks(int ranks) {
        return Math.max(ranks, 4);
    }
}
