package org.gexj.ibv;

import org.gexj.testkit.RendezvousLongKit;

import java.util.Map;

/**
 * The rendezvous AM Long over the ibv conduit on a real device with keyed registrations ({@code GEX_IBV_PEER_KEYS=on},
 * {@link RendezvousLongKit}): the target reads each payload by RDMA with the registration's rkey. A read from a closed
 * registration is a remote access error, which ends the job naming a rank. Run in the guest of tools/rxe-vm:
 * {@code tools/rxe-vm/run-junit.sh conduit-ibv IbvRendezvousLongOnDevice}; not run by the host suite (no device there).
 */
class IbvRendezvousLongOnDevice extends RendezvousLongKit {
    @Override
    protected Map<String, String> conduit() {
        return Map.of("GEX_CONDUIT", "ibv", "GEX_IBV_PEER_KEYS", "on", "GEX_IBV_TIMEOUT", "10");
    }

    @Override
    protected String pullCounter() {
        return null; // the conduit counts no reads of its own; the kit counts the pulls
    }

    @Override
    protected boolean refusesAlone() {
        return false;
    }
}
