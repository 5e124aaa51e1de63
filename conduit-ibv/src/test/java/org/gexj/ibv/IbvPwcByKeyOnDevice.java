package org.gexj.ibv;

import org.gexj.testkit.PwcByKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Puts and gets with completion by the registration's rkey on a real device ({@code GEX_IBV_PEER_KEYS=on},
 * {@link PwcByKey}): puts are RDMA writes with immediates, gets RDMA reads. No refusal is tried: on verbs it ends the
 * job ({@link IbvRendezvousLongOnDevice} checks that). Run in the guest of tools/rxe-vm:
 * {@code tools/rxe-vm/run-junit.sh conduit-ibv IbvPwcByKeyOnDevice}; not run by the host suite (no device there).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class IbvPwcByKeyOnDevice {
    @Test
    void keyedRegistrationsTakePutsAsWritesAndGiveGetsAsReads() {
        PwcByKey.run(Map.of("GEX_CONDUIT", "ibv", "GEX_IBV_PEER_KEYS", "on"), true, false, Duration.ofSeconds(240));
    }
}
