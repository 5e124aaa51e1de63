package org.gexj.ibv;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@code GEX_IBV_DEVICE}/{@code GEX_IBV_PORT} against made-up inventories: the choice, and each bad value named. */
class IbvSettingsTest {
    private static final int DOWN = 1;
    private static final int ACTIVE = 4;
    private static final int ETH = 2;
    private static final IbvInventory TWO = new IbvInventory(List.of(
        new IbvInventory.Device("mlx5_0", List.of(new IbvInventory.Port(1, DOWN, ETH),
            new IbvInventory.Port(2, ACTIVE, ETH))),
        new IbvInventory.Device("rxe0", List.of(new IbvInventory.Port(1, ACTIVE, ETH)))));

    private static IbvSettings.Choice choose(Map<String, String> env, IbvInventory inventory) {
        return IbvSettings.from(env).choose(inventory);
    }

    private static String refused(Class<? extends RuntimeException> type, Map<String, String> env,
                                  IbvInventory inventory) {
        return assertThrows(type, () -> choose(env, inventory)).getMessage();
    }

    @Test
    void unsetTheFirstActivePortOfTheFirstDeviceThatHasOne() {
        assertEquals(new IbvSettings.Choice("mlx5_0", 2, ETH), choose(Map.of(), TWO));
        assertEquals(new IbvSettings.Choice("rxe0", 1, ETH), choose(Map.of("GEX_IBV_DEVICE", "rxe0"), TWO));
        assertEquals(new IbvSettings.Choice("rxe0", 1, ETH), choose(Map.of("GEX_IBV_PORT", "1"), TWO));
        assertEquals(new IbvSettings.Choice("mlx5_0", 2, ETH),
            choose(Map.of("GEX_IBV_DEVICE", "mlx5_0", "GEX_IBV_PORT", " 2 "), TWO));
    }

    @Test
    void aMalformedPortIsNamedWithTheRange() {
        for (String bad : List.of("abc", "0", "-1", "256", "1.5", "")) {
            assertEquals("GEX_IBV_PORT=" + bad + " is not a port number: 1..255 (verbs numbers ports from 1), or"
                + " leave it unset for the first ACTIVE port",
                refused(IllegalArgumentException.class, Map.of("GEX_IBV_PORT", bad), TWO), bad);
        }
    }

    @Test
    void anUnknownDeviceIsNamedWithTheDevicesThatExist() {
        assertEquals("GEX_IBV_DEVICE=mlx4_0: no such RDMA device; the devices here: mlx5_0, rxe0",
            refused(IllegalArgumentException.class, Map.of("GEX_IBV_DEVICE", "mlx4_0"), TWO));
        assertEquals("GEX_IBV_DEVICE=' ' is blank: name a device (ibv_devices lists them) or leave it unset for the"
            + " first ACTIVE port", refused(IllegalArgumentException.class, Map.of("GEX_IBV_DEVICE", " "), TWO));
    }

    @Test
    void aPortThatDoesNotExistOrIsNotActiveIsNamedWithThePortsThatExist() {
        assertEquals("GEX_IBV_PORT=3: rxe0 has ports 1..1", refused(IllegalArgumentException.class,
            Map.of("GEX_IBV_DEVICE", "rxe0", "GEX_IBV_PORT", "3"), TWO));
        assertEquals("GEX_IBV_PORT=1: port 1 of mlx5_0 is DOWN, not ACTIVE (mlx5_0 port 1 DOWN, mlx5_0 port 2"
            + " ACTIVE)", refused(IllegalArgumentException.class,
            Map.of("GEX_IBV_DEVICE", "mlx5_0", "GEX_IBV_PORT", "1"), TWO));
        assertEquals("GEX_IBV_PORT=2: no device has port 2 ACTIVE; the ports here: mlx5_0 port 1 DOWN, mlx5_0 port 2"
            + " DOWN; rxe0 port 1 ACTIVE",
            refused(IllegalArgumentException.class, Map.of("GEX_IBV_PORT", "2"), new IbvInventory(List.of(
                new IbvInventory.Device("mlx5_0", List.of(new IbvInventory.Port(1, DOWN, ETH),
                    new IbvInventory.Port(2, DOWN, ETH))),
                new IbvInventory.Device("rxe0", List.of(new IbvInventory.Port(1, ACTIVE, ETH)))))));
    }

    @Test
    void noDeviceOrNoActivePortIsTheHostsProblemNotTheSettings() {
        assertEquals("no RDMA device (ibv_get_device_list returned 0 devices)",
            refused(IllegalStateException.class, Map.of(), new IbvInventory(List.of())));
        final IbvInventory down = new IbvInventory(List.of(new IbvInventory.Device("rxe0",
            List.of(new IbvInventory.Port(1, DOWN, ETH)))));
        assertEquals("no ACTIVE port on rxe0 (rxe0 port 1 DOWN)", refused(IllegalStateException.class, Map.of(),
            down));
        assertEquals("no ACTIVE port on rxe0 (rxe0 port 1 DOWN)", refused(IllegalStateException.class,
            Map.of("GEX_IBV_DEVICE", "rxe0"), down));
    }
}
