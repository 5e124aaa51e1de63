package org.gexj.ibv;

import org.gexj.Conduits;
import org.gexj.spi.ConduitProvider;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The provider on this host, which has libibverbs (Debian libibverbs1, installed by ./gexj.sh with its headers) but no
 * RDMA device and no kernel RDMA support: found by ServiceLoader, unavailable with the device reason, and open refuses
 * with that reason. Settings are checked before devices are looked for, so a bad value is named here too.
 */
class IbvConduitProviderTest {
    @Test
    void itIsFoundAsIbvAndIsUnavailableForWantOfADevice() {
        final ConduitProvider provider = Conduits.all(getClass().getClassLoader()).stream()
            .filter(p -> p.name().equals("ibv")).findFirst().orElseThrow();
        assertTrue(provider instanceof IbvConduitProvider, provider.getClass().getName());
        assertNull(org.gexj.ibv.ffm.Verbs.loadFailure(), "libibverbs.so.1 must load here (Debian libibverbs1)");
        assertFalse(provider.isAvailable());
        assertEquals("no RDMA device (ibv_get_device_list returned 0 devices)",
            provider.unavailabilityCause().getMessage());
        final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> provider.open(null));
        assertEquals("the ibv conduit cannot run here: no RDMA device (ibv_get_device_list returned 0 devices)",
            refused.getMessage());
    }

    @Test
    void badSettingsAreNamedBeforeDevicesAreLookedFor() {
        assertEquals("GEX_IBV_PORT=x is not a port number: 1..255 (verbs numbers ports from 1), or leave it unset for"
            + " the first ACTIVE port", Ibv.probe(Map.of("GEX_IBV_PORT", "x")).getMessage());
        // a well-formed device name is checked against the devices, and there are none here
        assertEquals("no RDMA device (ibv_get_device_list returned 0 devices)",
            Ibv.probe(Map.of("GEX_IBV_DEVICE", "mlx5_0", "GEX_IBV_PORT", "1")).getMessage());
    }
}
