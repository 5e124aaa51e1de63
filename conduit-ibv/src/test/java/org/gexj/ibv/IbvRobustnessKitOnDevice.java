package org.gexj.ibv;

import org.gexj.testkit.RobustnessKit;

import java.time.Duration;
import java.util.Map;

/**
 * RobustnessKit over the ibv conduit on a real device, e.g. Soft-RoCE in the guest of tools/rxe-vm:
 * {@code tools/rxe-vm/run-junit.sh --timeout 1500 conduit-ibv IbvRobustnessKitOnDevice}. Not run by the host suite (no
 * device there; the name does not end in Test). {@code GEX_KIT_LAUNCH=gexrun} runs each job as gexrun processes.
 */
class IbvRobustnessKitOnDevice extends RobustnessKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ibv");
    }

    /** Software RDMA under emulation runs tens of times slower than the host. */
    @Override
    protected Duration timeout() {
        return Duration.ofMinutes(10);
    }

    @Override
    protected Launch launch() {
        return "gexrun".equals(System.getenv("GEX_KIT_LAUNCH")) ? Launch.GEXRUN : Launch.THREADS;
    }
}
