package org.gexj.ibv.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.gexj.ibv.ffm.VerbsLayouts.IBV_SEND_WR;
import static org.gexj.ibv.ffm.VerbsLayouts.IBV_SGE;
import static org.gexj.ibv.ffm.VerbsLayouts.offset;

/**
 * One {@code struct ibv_send_wr} with its single {@code struct ibv_sge} and the {@code bad_wr} slot, allocated once and
 * rewritten for every post (the setters allocate nothing). Post it with {@link VerbsOps#postSend(MemorySegment,
 * SendWr)}; the library copies what it needs during the call, so the object may be rewritten as soon as that returns
 * (and, with {@code IBV_SEND_INLINE}, so may the payload).
 */
public final class SendWr {
    static final long WR_ID = offset(IBV_SEND_WR, "wr_id");
    static final long NEXT = offset(IBV_SEND_WR, "next");
    static final long SG_LIST = offset(IBV_SEND_WR, "sg_list");
    static final long NUM_SGE = offset(IBV_SEND_WR, "num_sge");
    static final long OPCODE = offset(IBV_SEND_WR, "opcode");
    static final long SEND_FLAGS = offset(IBV_SEND_WR, "send_flags");
    static final long IMM_DATA = offset(IBV_SEND_WR, "imm_data");
    static final long REMOTE_ADDR = offset(IBV_SEND_WR, "wr", "rdma", "remote_addr");
    static final long RKEY = offset(IBV_SEND_WR, "wr", "rdma", "rkey");
    static final long ATOMIC_REMOTE_ADDR = offset(IBV_SEND_WR, "wr", "atomic", "remote_addr");
    static final long ATOMIC_COMPARE_ADD = offset(IBV_SEND_WR, "wr", "atomic", "compare_add");
    static final long ATOMIC_SWAP = offset(IBV_SEND_WR, "wr", "atomic", "swap");
    static final long ATOMIC_RKEY = offset(IBV_SEND_WR, "wr", "atomic", "rkey");
    static final long UD_AH = offset(IBV_SEND_WR, "wr", "ud", "ah");
    static final long UD_REMOTE_QPN = offset(IBV_SEND_WR, "wr", "ud", "remote_qpn");
    static final long UD_REMOTE_QKEY = offset(IBV_SEND_WR, "wr", "ud", "remote_qkey");
    static final long SGE_ADDR = offset(IBV_SGE, "addr");
    static final long SGE_LENGTH = offset(IBV_SGE, "length");
    static final long SGE_LKEY = offset(IBV_SGE, "lkey");
    /** Immediate data travels in network byte order: the layout swaps on little-endian hosts. */
    static final ValueLayout.OfInt NETWORK_INT = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

    private final MemorySegment wr;
    private final MemorySegment sge;
    private final MemorySegment badWr;

    public SendWr(Arena arena) {
        this.wr = arena.allocate(IBV_SEND_WR);
        this.sge = arena.allocate(IBV_SGE);
        this.badWr = arena.allocate(ADDRESS);
        wr.set(ADDRESS, NEXT, MemorySegment.NULL);
        wr.set(ADDRESS, SG_LIST, sge);
    }

    /** {@code IBV_WR_SEND} of {@code length} bytes at {@code address} (registered under {@code lkey}). */
    public SendWr send(long wrId, long address, int length, int lkey, int flags) {
        return set(wrId, Verbs.IBV_WR_SEND, flags, address, length, lkey, 0L, 0, 0);
    }

    /** {@code IBV_WR_SEND_WITH_IMM}: the receiver's completion carries {@code imm}. */
    public SendWr sendWithImm(long wrId, long address, int length, int lkey, int flags, int imm) {
        return set(wrId, Verbs.IBV_WR_SEND_WITH_IMM, flags, address, length, lkey, 0L, 0, imm);
    }

    /**
     * {@code IBV_WR_SEND} on a UD QP: one datagram of {@code length} bytes at {@code address} (registered under
     * {@code lkey}; with {@code IBV_SEND_INLINE} up to the QP's inline size, any {@code lkey}) to the QP
     * {@code remoteQpn} behind the address handle {@code ah} ({@link VerbsAh#create}), which accepts it if
     * {@code remoteQkey} is its Q_Key. At most the path MTU's bytes ({@link Verbs#mtuBytes}). Unreliable: the send's
     * completion says it left, not that it arrived (a receiver without a posted receive drops it).
     *
     * <p>It writes {@code wr.ud}, the union that {@code wr.rdma} shares: the RC methods overwrite the same bytes.
     */
    public SendWr sendUd(long wrId, long address, int length, int lkey, int flags, MemorySegment ah, int remoteQpn,
                         int remoteQkey) {
        set(wrId, Verbs.IBV_WR_SEND, flags, address, length, lkey, 0L, 0, 0);
        // after set(): wr.rdma's remote_addr and rkey lie where wr.ud's ah and remote_qpn are
        wr.set(ADDRESS, UD_AH, ah);
        wr.set(JAVA_INT, UD_REMOTE_QPN, remoteQpn);
        wr.set(JAVA_INT, UD_REMOTE_QKEY, remoteQkey);
        return this;
    }

    /** {@code IBV_WR_RDMA_WRITE} of local bytes to {@code remoteAddress} of the peer's region {@code rkey}. */
    public SendWr rdmaWrite(long wrId, long address, int length, int lkey, long remoteAddress, int rkey, int flags) {
        return set(wrId, Verbs.IBV_WR_RDMA_WRITE, flags, address, length, lkey, remoteAddress, rkey, 0);
    }

    /** {@code IBV_WR_RDMA_WRITE_WITH_IMM}: a write that also consumes a receive at the peer, which gets {@code imm}. */
    public SendWr rdmaWriteWithImm(long wrId, long address, int length, int lkey, long remoteAddress, int rkey,
                                   int flags, int imm) {
        return set(wrId, Verbs.IBV_WR_RDMA_WRITE_WITH_IMM, flags, address, length, lkey, remoteAddress, rkey, imm);
    }

    /** {@code IBV_WR_RDMA_READ} of the peer's bytes at {@code remoteAddress} into local memory. */
    public SendWr rdmaRead(long wrId, long address, int length, int lkey, long remoteAddress, int rkey, int flags) {
        return set(wrId, Verbs.IBV_WR_RDMA_READ, flags, address, length, lkey, remoteAddress, rkey, 0);
    }

    /**
     * {@code IBV_WR_ATOMIC_FETCH_AND_ADD} ({@code add} in {@code compareAdd}) or {@code IBV_WR_ATOMIC_CMP_AND_SWP}
     * ({@code compareAdd} compared, {@code swap} swapped in) on the 8 aligned bytes at {@code remoteAddress} of the
     * peer's region {@code rkey}; the previous value lands in the 8 local bytes at {@code result}.
     */
    public SendWr atomic(long wrId, int opcode, long result, int lkey, long remoteAddress, int rkey, long compareAdd,
                         long swap, int flags) {
        set(wrId, opcode, flags, result, 8, lkey, 0L, 0, 0);
        // after set(): wr.atomic shares its bytes with wr.rdma, whose rkey lies where compare_add is
        wr.set(JAVA_LONG, ATOMIC_REMOTE_ADDR, remoteAddress);
        wr.set(JAVA_LONG, ATOMIC_COMPARE_ADD, compareAdd);
        wr.set(JAVA_LONG, ATOMIC_SWAP, swap);
        wr.set(JAVA_INT, ATOMIC_RKEY, rkey);
        return this;
    }

    private SendWr set(long wrId, int opcode, int flags, long address, int length, int lkey, long remoteAddress,
                       int rkey, int imm) {
        sge.set(JAVA_LONG, SGE_ADDR, address);
        sge.set(JAVA_INT, SGE_LENGTH, length);
        sge.set(JAVA_INT, SGE_LKEY, lkey);
        wr.set(JAVA_LONG, WR_ID, wrId);
        // a zero-length operation (a bare immediate) carries no scatter/gather entry
        wr.set(JAVA_INT, NUM_SGE, length == 0 ? 0 : 1);
        wr.set(JAVA_INT, OPCODE, opcode);
        wr.set(JAVA_INT, SEND_FLAGS, flags);
        wr.set(NETWORK_INT, IMM_DATA, imm);
        wr.set(JAVA_LONG, REMOTE_ADDR, remoteAddress);
        wr.set(JAVA_INT, RKEY, rkey);
        return this;
    }

    /** The {@code struct ibv_send_wr}. */
    public MemorySegment segment() {
        return wr;
    }

    /** The {@code struct ibv_send_wr *} slot the library sets to the failed request. */
    public MemorySegment badWr() {
        return badWr;
    }
}
