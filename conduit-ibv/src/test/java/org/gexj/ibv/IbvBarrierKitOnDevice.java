package org.gexj.ibv;

import org.gexj.testkit.BarrierKit;

import java.time.Duration;
import java.util.Map;

/**
 * BarrierKit over the ibv conduit on a real device, e.g. Soft-RoCE in the guest of tools/rxe-vm:
 * {@code tools/rxe-vm/run-junit.sh --timeout 1500 conduit-ibv IbvBarrierKitOnDevice}. Not run by the host suite (no
 * device there; the name does not end in Test). {@code GEX_KIT_LAUNCH=gexrun} runs each job as gexrun processes.
 */
class IbvBarrierKitOnDevice extends BarrierKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ibv");
    }

    /** Software RDMA under emulation runs tens of times slower than the host. */
    @Override
    protected Duration timeout() {
        return Duration.ofMinutes(10);
    }

    /** As on the other network conduits: each step of the dissemination barrier is a message. */
    @Override
    protected int phases() {
        return 300;
    }

    @Override
    protected Launch launch() {
        return "gexrun".equals(System.getenv("GEX_KIT_LAUNCH")) ? Launch.GEXRUN : Launch.THREADS;
    }
}
