package org.gexj.ibv.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.gexj.ibv.ffm.VerbsLayouts.IBV_WC;
import static org.gexj.ibv.ffm.VerbsLayouts.offset;

/**
 * An array of {@code struct ibv_wc} that {@link VerbsOps#pollCq(MemorySegment, WorkCompletions)} fills, allocated once,
 * with allocation-free getters by index. Only {@code wr_id} and {@code status} are valid in a completion whose status
 * is not {@code IBV_WC_SUCCESS} (verbs.h); {@code vendor_err} says more there.
 */
public final class WorkCompletions {
    static final long WR_ID = offset(IBV_WC, "wr_id");
    static final long STATUS = offset(IBV_WC, "status");
    static final long OPCODE = offset(IBV_WC, "opcode");
    static final long VENDOR_ERR = offset(IBV_WC, "vendor_err");
    static final long BYTE_LEN = offset(IBV_WC, "byte_len");
    static final long IMM_DATA = offset(IBV_WC, "imm_data");
    static final long QP_NUM = offset(IBV_WC, "qp_num");
    static final long SRC_QP = offset(IBV_WC, "src_qp");
    static final long WC_FLAGS = offset(IBV_WC, "wc_flags");
    private static final long SIZE = IBV_WC.byteSize();

    private final MemorySegment wc;
    private final int capacity;

    public WorkCompletions(Arena arena, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity + ": at least 1 completion");
        }
        this.wc = arena.allocate(IBV_WC, capacity);
        this.capacity = capacity;
    }

    public int capacity() {
        return capacity;
    }

    /** The {@code struct ibv_wc[capacity]}. */
    public MemorySegment segment() {
        return wc;
    }

    public long wrId(int i) {
        return wc.get(JAVA_LONG, i * SIZE + WR_ID);
    }

    /** {@code enum ibv_wc_status}; {@link Verbs#wcStatusText} names it. */
    public int status(int i) {
        return wc.get(JAVA_INT, i * SIZE + STATUS);
    }

    /** {@code enum ibv_wc_opcode}: {@code IBV_WC_SEND}, {@code IBV_WC_RECV}, {@code IBV_WC_RECV_RDMA_WITH_IMM}... */
    public int opcode(int i) {
        return wc.get(JAVA_INT, i * SIZE + OPCODE);
    }

    public int vendorErr(int i) {
        return wc.get(JAVA_INT, i * SIZE + VENDOR_ERR);
    }

    /**
     * Bytes received (receive completions). On a UD QP it counts the {@link Verbs#UD_GRH_BYTES} at the start of the
     * buffer: the payload is {@code byteLen - UD_GRH_BYTES} bytes from offset {@code UD_GRH_BYTES}.
     */
    public int byteLen(int i) {
        return wc.get(JAVA_INT, i * SIZE + BYTE_LEN);
    }

    /** The immediate, in host order; valid when {@link #wcFlags} has {@code IBV_WC_WITH_IMM}. */
    public int immData(int i) {
        return wc.get(SendWr.NETWORK_INT, i * SIZE + IMM_DATA);
    }

    /** The local QP the completion belongs to (with an SRQ: which QP consumed the receive). */
    public int qpNum(int i) {
        return wc.get(JAVA_INT, i * SIZE + QP_NUM);
    }

    /** The sending QP's number (UD receive completions): with the source's address, who sent the datagram. */
    public int srcQp(int i) {
        return wc.get(JAVA_INT, i * SIZE + SRC_QP);
    }

    /**
     * {@code IBV_WC_*} flags: {@code IBV_WC_WITH_IMM} (see {@link #immData}); {@code IBV_WC_GRH} on a UD receive
     * whose buffer's first {@link Verbs#UD_GRH_BYTES} hold a global route header (always on RoCE).
     */
    public int wcFlags(int i) {
        return wc.get(JAVA_INT, i * SIZE + WC_FLAGS);
    }
}
