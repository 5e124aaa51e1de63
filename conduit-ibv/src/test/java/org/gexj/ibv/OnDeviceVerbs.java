package org.gexj.ibv;

import org.gexj.ibv.ffm.Verbs;
import org.gexj.ibv.ffm.VerbsLayouts;
import org.gexj.ibv.ffm.VerbsOps;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * For the tests that drive the verbs bindings on a real device ({@code *OnDevice}): the device opened, its port's
 * attributes and RoCE v2 GID, and a PD. The device is {@code RXE_DEVICE} (port 1), else the conduit's own choice
 * ({@code GEX_IBV_DEVICE}/{@code GEX_IBV_PORT} or the first ACTIVE port).
 *
 * @param mtu the port's active MTU as verbs' enum
 */
record OnDeviceVerbs(MemorySegment list, MemorySegment context, VerbsOps ops, MemorySegment pd, String name, int port,
                     int mtu, int lid, int gidIndex, MemorySegment gid) {

    static OnDeviceVerbs open(Arena arena) {
        assertEquals(null, Verbs.loadFailure(), "libibverbs.so.1 did not load");
        final String env = System.getenv("RXE_DEVICE");
        final IbvSettings.Choice choice = env != null ? new IbvSettings.Choice(env, 1, 0)
            : IbvSettings.from(System.getenv()).choose(IbvInventory.scan());
        final int port = choice.port();
        final MemorySegment count = arena.allocate(JAVA_INT);
        final MemorySegment list = Verbs.getDeviceList(count);
        MemorySegment device = MemorySegment.NULL;
        for (int i = 0; i < count.get(JAVA_INT, 0); i++) {
            if (Verbs.deviceName(list.getAtIndex(ADDRESS, i)).equals(choice.device())) {
                device = list.getAtIndex(ADDRESS, i);
            }
        }
        assertNotEquals(MemorySegment.NULL, device, "no device " + choice.device());
        final MemorySegment context = Verbs.openDevice(device);
        final MemorySegment portAttr = arena.allocate(VerbsLayouts.IBV_PORT_ATTR);
        Verbs.queryPort(context, port, portAttr);
        final int mtu = portAttr.get(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_PORT_ATTR, "active_mtu"));
        final int lid = Short.toUnsignedInt(
            portAttr.get(JAVA_SHORT, VerbsLayouts.offset(VerbsLayouts.IBV_PORT_ATTR, "lid")));
        final int gidIndex = IbvGids.choose(context, choice.device(), port);
        final MemorySegment gid = arena.allocate(16, 8);
        Verbs.queryGid(context, port, gidIndex, gid);
        System.out.println("device " + choice.device() + " port " + port + " active mtu " + Verbs.mtuBytes(mtu)
            + " B, lid " + lid + ", gid[" + gidIndex + "] " + HexFormat.of().formatHex(gid.toArray(JAVA_BYTE)));
        return new OnDeviceVerbs(list, context, new VerbsOps(context), Verbs.allocPd(context), choice.device(), port,
            mtu, lid, gidIndex, gid);
    }

    /** Frees the PD, closes the device and frees the list; what the test made on them must be gone first. */
    void close() {
        Verbs.deallocPd(pd);
        Verbs.closeDevice(context);
        Verbs.freeDeviceList(list);
    }
}
