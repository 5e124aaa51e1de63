package org.gexj.ibv;

import org.gexj.ibv.ffm.Verbs;
import org.gexj.ibv.ffm.VerbsLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/** The RDMA devices of this host and the state of their ports, as libibverbs reports them. */
public record IbvInventory(List<Device> devices) {
    private static final long PORT_STATE = VerbsLayouts.offset(VerbsLayouts.IBV_PORT_ATTR, "state");
    private static final long PORT_LINK_LAYER = VerbsLayouts.offset(VerbsLayouts.IBV_PORT_ATTR, "link_layer");

    public IbvInventory {
        devices = List.copyOf(devices);
    }

    /** A device ({@code mlx5_0}, {@code rxe0}) and its ports, numbered from 1. */
    public record Device(String name, List<Port> ports) {
        public Device {
            ports = List.copyOf(ports);
        }
    }

    /**
     * A port: its number, {@code enum ibv_port_state} ({@code IBV_PORT_ACTIVE} = 4) and link layer
     * ({@code IBV_LINK_LAYER_ETHERNET} = 2 for RoCE).
     */
    public record Port(int number, int state, int linkLayer) {
        public boolean active() {
            return state == Verbs.IBV_PORT_ACTIVE;
        }

        /** The state as verbs.h names it, without the prefix: DOWN, INIT, ARMED, ACTIVE... */
        public String stateName() {
            return switch (state) {
                case 0 -> "NOP";
                case Verbs.IBV_PORT_DOWN -> "DOWN";
                case Verbs.IBV_PORT_INIT -> "INIT";
                case Verbs.IBV_PORT_ARMED -> "ARMED";
                case Verbs.IBV_PORT_ACTIVE -> "ACTIVE";
                case 5 -> "ACTIVE_DEFER";
                default -> "state " + state;
            };
        }
    }

    /**
     * Opens every device once and queries its ports. Needs libibverbs ({@link Verbs#loadFailure()} null).
     *
     * @throws IbvException if a device cannot be opened or queried
     */
    public static IbvInventory scan() {
        final List<Device> devices = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment count = arena.allocate(JAVA_INT);
            final MemorySegment list = Verbs.getDeviceList(count);
            if (list.equals(MemorySegment.NULL)) {
                return new IbvInventory(devices);
            }
            try {
                final MemorySegment attr = arena.allocate(VerbsLayouts.IBV_PORT_ATTR);
                for (int i = 0; i < count.get(JAVA_INT, 0); i++) {
                    final MemorySegment device = list.getAtIndex(ADDRESS, i);
                    final MemorySegment context = Verbs.openDevice(device);
                    try {
                        final List<Port> ports = new ArrayList<>();
                        final int portCount = Verbs.portCount(context);
                        for (int p = 1; p <= portCount; p++) {
                            Verbs.queryPort(context, p, attr);
                            ports.add(new Port(p, attr.get(JAVA_INT, PORT_STATE),
                                Byte.toUnsignedInt(attr.get(JAVA_BYTE, PORT_LINK_LAYER))));
                        }
                        devices.add(new Device(Verbs.deviceName(device), ports));
                    } finally {
                        Verbs.closeDevice(context);
                    }
                }
            } finally {
                Verbs.freeDeviceList(list);
            }
        }
        return new IbvInventory(devices);
    }
}
