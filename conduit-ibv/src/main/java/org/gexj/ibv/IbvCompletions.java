package org.gexj.ibv;

import org.gexj.ibv.ffm.Verbs;
import org.gexj.ibv.ffm.WorkCompletions;
import org.gexj.rdma.RdmaCompletions;
import org.gexj.rdma.RdmaNic;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Work completions as the RDMA engine reads them. A receive's {@code wr_id} is the engine's context: the address of a
 * 64-byte slot of the engine's, where {@link IbvNic#postReceive} stored the buffer's address, read back here for
 * {@link #buffer} (no map). A receive's sender is known only by the QP that took it from the shared receive queue
 * ({@code qp_num}), which {@link IbvQpTable} maps to the rank; a write with immediate reports that rank in the high
 * 32 bits of {@link #data}, as the engine expects of 8 bytes of completion data. Allocation-free.
 */
final class IbvCompletions implements RdmaCompletions {
    /** All of memory, to read the engine's context slots by address. */
    static final MemorySegment EVERYWHERE = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    final WorkCompletions wc;
    private final IbvQpTable qps;

    IbvCompletions(WorkCompletions wc, IbvQpTable qps) {
        this.wc = wc;
        this.qps = qps;
    }

    @Override
    public long context(int i) {
        return wc.wrId(i);
    }

    /** A peer's RDMA WRITE_WITH_IMM, which consumed a receive of the shared receive queue. */
    @Override
    public boolean remoteData(int i) {
        return wc.opcode(i) == Verbs.IBV_WC_RECV_RDMA_WITH_IMM;
    }

    /** Every receive completion gives its buffer back: one message per buffer. */
    @Override
    public boolean releases(int i) {
        return (wc.opcode(i) & Verbs.IBV_WC_RECV) != 0;
    }

    @Override
    public long length(int i) {
        return Integer.toUnsignedLong(wc.byteLen(i));
    }

    @Override
    public long buffer(int i) {
        return EVERYWHERE.get(JAVA_LONG, wc.wrId(i));
    }

    /** The sender's rank (-1 if unknown) in the high 32 bits, the immediate in the low 32. */
    @Override
    public long data(int i) {
        return ((long) qps.rank(wc.qpNum(i)) << 32) | Integer.toUnsignedLong(wc.immData(i));
    }

    @Override
    public long source(int i) {
        final int rank = qps.rank(wc.qpNum(i));
        return rank >= 0 ? rank : RdmaNic.FOREIGN_SOURCE;
    }
}
