package org.gexj.ofi;

import org.gexj.testkit.KitSetup;
import org.gexj.testkit.RobustnessKit;

import java.util.Map;

/**
 * Misuse and failure handling over ofi on shm, every rank a process started by gexrun (shm runs no kit in threads of
 * one JVM: its endpoints per process are limited), 4 ranks wherever a test is written for any job size and 2 where its
 * roles are.
 */
class OfiShmGexrun4RankRobustnessTest extends RobustnessKit {
    @Override
    protected KitSetup setup() {
        return KitSetup.gexrun(Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "shm"), 4);
    }
}
