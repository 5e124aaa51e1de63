package org.gexj.ofi;

import org.gexj.testkit.RobustnessKit;

import java.util.Map;

/**
 * Misuse and failure handling over ofi on shm, every rank a process started by gexrun (shm runs no kit in threads of
 * one JVM: its endpoints per process are limited), 4 ranks wherever a test is written for any job size and 2 where its
 * roles are.
 */
class OfiShmGexrun4RankRobustnessTest extends RobustnessKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "shm");
    }

    @Override
    protected Launch launch() {
        return Launch.GEXRUN;
    }

    @Override
    protected int ranks(int ranks) {
        return Math.max(ranks, 4);
    }
}
