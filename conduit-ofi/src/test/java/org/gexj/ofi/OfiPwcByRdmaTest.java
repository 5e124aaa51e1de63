package org.gexj.ofi;

import org.gexj.testkit.PwcByKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Puts and gets with completion into and out of registrations reached by key ({@code GEX_OFI_PEER_KEYS},
 * {@link PwcByKey}). tcp;ofi_rxm loses the connection to a peer that refused, which is why it keys only when asked;
 * sockets survives a refused access.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OfiPwcByRdmaTest {
    /** tcp;ofi_rxm with keys: a put is written with immediates, a get read, each by the registration's key. */
    @Test
    void keyedRegistrationsTakePutsAsWritesAndGiveGetsAsReads() {
        PwcByKey.run(Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm", "GEX_OFI_PEER_KEYS", "on"), true,
            false, Duration.ofSeconds(100));
    }

    /**
     * sockets keys by default but has no immediates: puts go over AM, gets are reads by key, and its NIC refuses one
     * of a closed registration.
     */
    @Test
    void onSocketsGetsAreReadsByKeyWhichTheNicRefusesForAClosedRegistration() {
        PwcByKey.run(Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "sockets"), false, true, Duration.ofSeconds(100));
    }
}
