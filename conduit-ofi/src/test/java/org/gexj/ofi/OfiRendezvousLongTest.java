package org.gexj.ofi;

import org.gexj.Lc;
import org.gexj.testkit.RendezvousLongKit;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The rendezvous AM Long on ofi, pulled by RDMA read with the registration's key ({@link RendezvousLongKit}): on the
 * sockets provider, whose registrations are keyed by default and which refuses a closed one's key alone; and on
 * tcp;ofi_rxm with keyed registrations asked for ({@code GEX_OFI_PEER_KEYS=on}).
 */
class OfiRendezvousLongTest extends RendezvousLongKit {
    @Override
    protected Map<String, String> conduit() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "sockets");
    }

    @Override
    protected String pullCounter() {
        return null; // the conduit counts no reads of its own; the kit counts the pulls
    }

    @Override
    protected String closedPullReason() {
        return "could not be read";
    }

    @Test
    void tcpWithKeyedRegistrationsPullsToo() {
        final Map<String, Long> counters = run(Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm",
            "GEX_OFI_PEER_KEYS", "on", "GEX_AMLONG_RENDEZVOUS_MIN", String.valueOf(MIN)),
            new int[] {1, MIN - 1, MIN, 3 * MIN + 5, 2 << 20}, Lc.NOW);
        assertEquals(3L, counters.get("0:am.rendezvous.sent"), counters.toString());
        assertEquals(3L, counters.get("1:am.rendezvous.pulled"), counters.toString());
        assertEquals(0L, counters.get("1:am.rendezvous.refused"), counters.toString());
    }
}
