package org.gexj.ibv.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A datagram of the on-demand connection protocol ({@code GEX_IBV_CONNECT=ondemand}), sent over each rank's UD queue
 * pair; see {@code IbvConnector} for the protocol. Little-endian, 24 bytes:
 * <pre>
 *  | version:8 | kind:8 | reserved:16 | job tag:32 | source rank:32 | destination rank:32 | QP number:32 | PSN:32 |
 * </pre>
 * The job tag (rank 0's random number, learnt in the start-up allgather) drops datagrams of another job that reused a
 * QP number. A flyweight over memory the caller owns: wrapping and reading allocate nothing.
 */
public final class IbvConnectFlyweight {
    public static final byte VERSION = 1;
    /** "Connect your QP for me to mine": sent by the rank that wants to send, again until answered. */
    public static final int REQUEST = 1;
    /** "My QP for you is connected to yours (RTS)": the answer to a request, and to a crossing request. */
    public static final int REPLY = 2;
    /** "Mine is connected too: send": the answer to a reply, which lets the replier send. */
    public static final int READY = 3;
    public static final int LENGTH = 24;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int KIND = 1;
    private static final int TAG = 4;
    private static final int SOURCE = 8;
    private static final int DESTINATION = 12;
    private static final int QPN = 16;
    private static final int PSN = 20;

    private MemorySegment memory = MemorySegment.NULL;
    private long offset;

    /** Reads and writes the message at {@code offset} of {@code memory}, which must hold {@link #LENGTH} bytes. */
    public IbvConnectFlyweight wrap(MemorySegment memory, long offset) {
        if (offset < 0 || offset > memory.byteSize() - LENGTH) {
            throw new IllegalArgumentException("offset " + offset + " outside [0, " + (memory.byteSize() - LENGTH)
                + "]: a connection message takes " + LENGTH + " bytes of " + memory.byteSize());
        }
        this.memory = memory;
        this.offset = offset;
        return this;
    }

    /** Writes a whole message. */
    public IbvConnectFlyweight write(int kind, int tag, int source, int destination, int qpn, int psn) {
        memory.set(ValueLayout.JAVA_BYTE, offset, VERSION);
        memory.set(ValueLayout.JAVA_BYTE, offset + KIND, (byte) kind);
        memory.set(ValueLayout.JAVA_SHORT_UNALIGNED, offset + 2, (short) 0);
        memory.set(INT, offset + TAG, tag);
        memory.set(INT, offset + SOURCE, source);
        memory.set(INT, offset + DESTINATION, destination);
        memory.set(INT, offset + QPN, qpn);
        memory.set(INT, offset + PSN, psn);
        return this;
    }

    public int version() {
        return memory.get(ValueLayout.JAVA_BYTE, offset);
    }

    public int kind() {
        return memory.get(ValueLayout.JAVA_BYTE, offset + KIND);
    }

    public int tag() {
        return memory.get(INT, offset + TAG);
    }

    public int source() {
        return memory.get(INT, offset + SOURCE);
    }

    public int destination() {
        return memory.get(INT, offset + DESTINATION);
    }

    public int qpn() {
        return memory.get(INT, offset + QPN);
    }

    public int psn() {
        return memory.get(INT, offset + PSN);
    }

    /**
     * Whether the message is one this rank should act on: this version, a known kind, this job's tag, from a rank of
     * the job other than itself, to this rank, with a 24-bit QP number and PSN.
     */
    public boolean valid(int tag, int rank, int size) {
        final int kind = kind();
        final int source = source();
        final int qpn = qpn();
        final int psn = psn();
        return version() == VERSION && kind >= REQUEST && kind <= READY && tag() == tag && destination() == rank
            && source >= 0 && source < size && source != rank && (qpn & ~0xFFFFFF) == 0 && (psn & ~0xFFFFFF) == 0;
    }
}
