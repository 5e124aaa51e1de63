package org.gexj.ibv.wire;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The blob a rank publishes through the bootstrap's allgather. When the ibv conduit connects statically: how to reach
 * its port, and the number of the queue pair it made for each rank.
 * <pre>
 *  | version 1:8 | lid:16 | active MTU (enum ibv_mtu):8 | GID:16 bytes | first PSN:32 | ranks:32 | qpn:32 per rank |
 * </pre>
 * Rank {@code p} connects its QP toward rank {@code r} to {@code qpns[p]} of {@code r}'s blob. When it connects on
 * demand ({@link Address}): how to reach its port and the number of its UD queue pair, over which the connection
 * messages ({@link IbvConnectFlyweight}) go, and a random job tag (rank 0's is the job's).
 * <pre>
 *  | version 2:8 | lid:16 | active MTU (enum ibv_mtu):8 | GID:16 bytes | UD qpn:32 | tag:32 |
 * </pre>
 * The versions differ so that ranks started with different {@code GEX_IBV_CONNECT} say so instead of misreading.
 */
public final class IbvConnectionCodec {
    public static final byte VERSION = 1;
    public static final byte ADDRESS_VERSION = 2;
    /** Bytes of an {@link Address} blob. */
    public static final int ADDRESS_LENGTH = 1 + 2 + 1 + 16 + 4 + 4;
    /** Bytes before the QP numbers. */
    public static final int HEADER = 1 + 2 + 1 + 16 + 4 + 4;
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private IbvConnectionCodec() {
    }

    /**
     * One rank's port and queue pairs.
     *
     * @param lid  the port's LID (InfiniBand; 0 on RoCE)
     * @param mtu  the port's active MTU as {@code enum ibv_mtu} (1 = 256 ... 5 = 4096)
     * @param gid  the GID of the entry its QPs route through, 16 bytes
     * @param psn  the first packet sequence number its QPs send (24 bits)
     * @param qpns the QP number it made for each rank, indexed by rank
     */
    public record Endpoint(int lid, int mtu, byte[] gid, int psn, int[] qpns) {
        public Endpoint {
            checkPort(lid, mtu, gid);
            if (psn < 0 || psn > 0xFFFFFF) {
                throw new IllegalArgumentException("PSN " + psn + " outside [0, 16777215] (24 bits)");
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Endpoint e && e.lid == lid && e.mtu == mtu && Arrays.equals(e.gid, gid)
                && e.psn == psn && Arrays.equals(e.qpns, qpns);
        }

        @Override
        public int hashCode() {
            return ((lid * 31 + mtu) * 31 + Arrays.hashCode(gid)) * 31 + Arrays.hashCode(qpns) + psn;
        }

        @Override
        public String toString() {
            return "lid " + lid + ", mtu enum " + mtu + ", GID " + HexFormat.of().formatHex(gid) + ", PSN " + psn
                + ", QPs " + Arrays.toString(qpns);
        }
    }

    public static byte[] encode(Endpoint e) {
        final ByteBuffer b = ByteBuffer.allocate(HEADER + 4 * e.qpns().length).order(ORDER).put(VERSION)
            .putShort((short) e.lid()).put((byte) e.mtu()).put(e.gid()).putInt(e.psn()).putInt(e.qpns().length);
        for (int qpn : e.qpns()) {
            b.putInt(qpn);
        }
        return b.array();
    }

    /**
     * The endpoint in the blob of {@code rank} in a job of {@code size} ranks.
     *
     * @throws IllegalArgumentException naming {@code rank} and what is wrong with its blob
     */
    public static Endpoint decode(byte[] blob, int rank, int size) {
        try {
            final ByteBuffer b = ByteBuffer.wrap(blob).order(ORDER);
            final byte version = b.get();
            checkVersion(version, VERSION, rank);
            final int lid = Short.toUnsignedInt(b.getShort());
            final int mtu = Byte.toUnsignedInt(b.get());
            final byte[] gid = new byte[16];
            b.get(gid);
            final int psn = b.getInt();
            final int count = b.getInt();
            if (count != size || b.remaining() != 4L * size) {
                throw new IllegalArgumentException("rank " + rank + "'s ibv connection blob names " + count
                    + " queue pairs in " + b.remaining() + " bytes; a job of " + size + " ranks needs " + size);
            }
            final int[] qpns = new int[size];
            for (int r = 0; r < size; r++) {
                qpns[r] = b.getInt();
            }
            if (psn < 0 || psn > 0xFFFFFF) {
                throw new IllegalArgumentException("rank " + rank + "'s ibv connection blob has PSN " + psn
                    + " outside 24 bits");
            }
            return new Endpoint(lid, mtu, gid, psn, qpns);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("rank " + rank + "'s ibv connection blob of " + blob.length
                + " bytes is truncated");
        }
    }

    /** The checks of a port's address that both blobs carry. */
    private static void checkPort(int lid, int mtu, byte[] gid) {
        if (lid < 0 || lid > 0xFFFF) {
            throw new IllegalArgumentException("lid " + lid + " outside [0, 65535]");
        }
        if (mtu < 0 || mtu > 0xFF) {
            throw new IllegalArgumentException("mtu " + mtu + " outside [0, 255]");
        }
        if (gid.length != 16) {
            throw new IllegalArgumentException("GID of " + gid.length + " bytes: a GID has 16");
        }
    }

    private static void checkVersion(byte version, byte expected, int rank) {
        if (version == expected) {
            return;
        }
        if (version == VERSION || version == ADDRESS_VERSION) {
            throw new IllegalArgumentException("rank " + rank + " connects " + mode(version) + " and this rank "
                + mode(expected) + ": start every rank with the same GEX_IBV_CONNECT");
        }
        throw new IllegalArgumentException("rank " + rank + " sent an ibv connection blob of version " + version
            + ", this rank speaks " + expected);
    }

    private static String mode(byte version) {
        return version == VERSION ? "statically (GEX_IBV_CONNECT=static)" : "on demand (GEX_IBV_CONNECT=ondemand)";
    }

    /**
     * One rank's port and UD queue pair, for on-demand connections.
     *
     * @param lid   the port's LID (InfiniBand; 0 on RoCE)
     * @param mtu   the port's active MTU as {@code enum ibv_mtu}
     * @param gid   the GID of the entry its QPs route through, 16 bytes
     * @param udQpn the number of its UD queue pair (24 bits)
     * @param tag   a random number; rank 0's tags the job's connection messages
     */
    public record Address(int lid, int mtu, byte[] gid, int udQpn, int tag) {
        public Address {
            checkPort(lid, mtu, gid);
            if (udQpn < 0 || udQpn > 0xFFFFFF) {
                throw new IllegalArgumentException("UD QP number " + udQpn + " outside [0, 16777215] (24 bits)");
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Address a && a.lid == lid && a.mtu == mtu && Arrays.equals(a.gid, gid)
                && a.udQpn == udQpn && a.tag == tag;
        }

        @Override
        public int hashCode() {
            return (((lid * 31 + mtu) * 31 + Arrays.hashCode(gid)) * 31 + udQpn) * 31 + tag;
        }

        @Override
        public String toString() {
            return "lid " + lid + ", mtu enum " + mtu + ", GID " + HexFormat.of().formatHex(gid) + ", UD QP " + udQpn
                + ", tag " + Integer.toHexString(tag);
        }
    }

    public static byte[] encode(Address a) {
        return ByteBuffer.allocate(ADDRESS_LENGTH).order(ORDER).put(ADDRESS_VERSION).putShort((short) a.lid())
            .put((byte) a.mtu()).put(a.gid()).putInt(a.udQpn()).putInt(a.tag()).array();
    }

    /**
     * The address in the blob of {@code rank}.
     *
     * @throws IllegalArgumentException naming {@code rank} and what is wrong with its blob
     */
    public static Address decodeAddress(byte[] blob, int rank) {
        if (blob.length == 0) {
            throw new IllegalArgumentException("rank " + rank + " sent an empty ibv connection blob");
        }
        checkVersion(blob[0], ADDRESS_VERSION, rank);
        if (blob.length != ADDRESS_LENGTH) {
            throw new IllegalArgumentException("rank " + rank + "'s ibv address blob has " + blob.length
                + " bytes; it has " + ADDRESS_LENGTH);
        }
        final ByteBuffer b = ByteBuffer.wrap(blob, 1, ADDRESS_LENGTH - 1).order(ORDER);
        final int lid = Short.toUnsignedInt(b.getShort());
        final int mtu = Byte.toUnsignedInt(b.get());
        final byte[] gid = new byte[16];
        b.get(gid);
        final int qpn = b.getInt();
        final int tag = b.getInt();
        if (qpn < 0 || qpn > 0xFFFFFF) {
            throw new IllegalArgumentException("rank " + rank + "'s ibv address blob has UD QP number " + qpn
                + " outside 24 bits");
        }
        return new Address(lid, mtu, gid, qpn, tag);
    }
}
