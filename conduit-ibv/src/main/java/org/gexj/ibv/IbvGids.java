package org.gexj.ibv;

import org.gexj.ibv.ffm.Errno;
import org.gexj.ibv.ffm.Verbs;
import org.gexj.ibv.ffm.VerbsLayouts;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Which entry of a port's GID table a QP's global route uses ({@code sgid_index}). On RoCE (link layer Ethernet) a GID
 * is one of the netdev's IP addresses in one of two encapsulations: RoCE v2 (UDP/IP, routable, what current fabrics
 * and rxe use) is preferred, and among those an IPv4-mapped address ({@code ::ffff:a.b.c.d}) before IPv6 (link-local
 * last), as perftest and UCX choose. On InfiniBand, entry 0 (the port GID).
 *
 * <p>The type comes from {@code ibv_query_gid_ex}; where the kernel cannot answer that, from
 * {@code /sys/class/infiniband/<dev>/ports/<port>/gid_attrs/types/<index>} ("RoCE v2", "IB/RoCE v1").
 */
public final class IbvGids {
    private static final long PORT_GID_TBL_LEN = VerbsLayouts.offset(VerbsLayouts.IBV_PORT_ATTR, "gid_tbl_len");
    private static final long PORT_LINK_LAYER = VerbsLayouts.offset(VerbsLayouts.IBV_PORT_ATTR, "link_layer");
    private static final Path SYSFS = Path.of("/sys/class/infiniband");

    private IbvGids() {
    }

    /**
     * The GID index to use on {@code port} of the opened device {@code context} named {@code deviceName}.
     *
     * @throws IbvException if the port or its table cannot be queried, or a RoCE port has no RoCE v2 GID (no IP
     *                      address on its netdev)
     */
    public static int choose(MemorySegment context, String deviceName, int port) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment attr = arena.allocate(VerbsLayouts.IBV_PORT_ATTR);
            Verbs.queryPort(context, port, attr);
            if (Byte.toUnsignedInt(attr.get(JAVA_BYTE, PORT_LINK_LAYER)) != Verbs.IBV_LINK_LAYER_ETHERNET) {
                return 0;
            }
            final int entries = attr.get(JAVA_INT, PORT_GID_TBL_LEN);
            final MemorySegment entry = arena.allocate(VerbsLayouts.IBV_GID_ENTRY);
            int best = -1;
            int bestRank = Integer.MAX_VALUE;
            for (int i = 0; i < entries; i++) {
                final int type = type(context, deviceName, port, i, entry);
                if (type != Verbs.IBV_GID_TYPE_ROCE_V2) {
                    continue;
                }
                final int rank = rank(entry);
                if (rank < bestRank) {
                    best = i;
                    bestRank = rank;
                }
            }
            if (best < 0) {
                throw Errno.failure("no RoCE v2 GID on " + deviceName + " port " + port + " (" + entries + " entries;"
                    + " does its netdev have an IP address?)", Errno.ENODATA);
            }
            return best;
        }
    }

    /** The entry's type, its GID left in {@code entry}; -1 for an empty entry. */
    private static int type(MemorySegment context, String deviceName, int port, int index, MemorySegment entry) {
        final int rc = Verbs.queryGidEx(context, port, index, entry);
        if (rc == 0) {
            return Verbs.gidType(entry);
        }
        if (rc == Errno.ENODATA || rc == Errno.EINVAL) {
            return -1;
        }
        if (rc != Errno.EOPNOTSUPP && rc != Errno.ENOSYS) {
            throw Errno.failure("ibv_query_gid_ex(" + deviceName + " port " + port + ", index " + index + ")", rc);
        }
        Verbs.queryGid(context, port, index, entry);
        return sysfsType(deviceName, port, index);
    }

    /**
     * {@code /sys/class/infiniband/<dev>/ports/<port>/gid_attrs/types/<index>}: "RoCE v2" or "IB/RoCE v1"; -1 if
     * absent (an empty entry reads as EINVAL).
     */
    static int sysfsType(String deviceName, int port, int index) {
        final Path file = SYSFS.resolve(deviceName).resolve("ports").resolve(Integer.toString(port))
            .resolve("gid_attrs/types").resolve(Integer.toString(index));
        try {
            final String text = Files.readString(file).trim();
            return text.equalsIgnoreCase("RoCE v2") ? Verbs.IBV_GID_TYPE_ROCE_V2 : Verbs.IBV_GID_TYPE_ROCE_V1;
        } catch (IOException e) {
            return -1;
        }
    }

    // 0: IPv4-mapped; 1: global IPv6; 2: link-local IPv6; 3: zero (unused)
    private static int rank(MemorySegment gid) {
        boolean zero = true;
        for (int i = 0; i < 16; i++) {
            zero &= gid.get(JAVA_BYTE, i) == 0;
        }
        if (zero) {
            return 3;
        }
        boolean mapped = gid.get(JAVA_BYTE, 10) == (byte) 0xff && gid.get(JAVA_BYTE, 11) == (byte) 0xff;
        for (int i = 0; i < 10; i++) {
            mapped &= gid.get(JAVA_BYTE, i) == 0;
        }
        if (mapped) {
            return 0;
        }
        return gid.get(JAVA_BYTE, 0) == (byte) 0xfe && (gid.get(JAVA_BYTE, 1) & 0xc0) == 0x80 ? 2 : 1;
    }
}
