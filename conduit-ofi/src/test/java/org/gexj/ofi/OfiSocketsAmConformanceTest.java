package org.gexj.ofi;

import org.gexj.Config;
import org.gexj.testkit.AmConformanceKit;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AM conformance over ofi on the sockets provider, whose writes with remote CQ data never complete here, so its Longs
 * go put-sync-send by default ({@link OfiSettings#NO_WRITE_DATA_PROVIDERS}), and whose endpoint reports a peer that
 * exited at once (the launcher's cause is still the one reported).
 */
class OfiSocketsAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "sockets");
    }

    @Test
    void socketsUsesNoRemoteCqDataUnlessAskedTo() {
        final InetAddress here = InetAddress.getLoopbackAddress();
        final OfiSettings unset = OfiSettings.from(Config.of(Map.of()), here);
        assertEquals(0, unset.cqDataBytes("sockets"));
        assertEquals(8, unset.cqDataBytes("tcp;ofi_rxm"));
        assertEquals(4, OfiSettings.from(Config.of(Map.of(OfiSettings.CQ_DATA, "4")), here).cqDataBytes("sockets"));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> OfiSettings.from(Config.of(Map.of(OfiSettings.CQ_DATA, "3")), here));
        assertTrue(e.getMessage().contains("GEX_OFI_CQ_DATA=3") && e.getMessage().contains("0, 4, 8"), e.getMessage());
    }
}
