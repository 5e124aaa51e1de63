package org.gexj.ibv.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.gexj.ibv.ffm.VerbsLayouts.IBV_RECV_WR;
import static org.gexj.ibv.ffm.VerbsLayouts.IBV_SGE;
import static org.gexj.ibv.ffm.VerbsLayouts.offset;

/**
 * One {@code struct ibv_recv_wr} with its single {@code struct ibv_sge} and {@code bad_wr} slot, allocated once and
 * rewritten for every post, for {@link VerbsOps#postRecv(MemorySegment, RecvWr)} and
 * {@link VerbsOps#postSrqRecv(MemorySegment, RecvWr)}. The buffer, not this object, must stay until it completes.
 */
public final class RecvWr {
    static final long WR_ID = offset(IBV_RECV_WR, "wr_id");
    static final long NEXT = offset(IBV_RECV_WR, "next");
    static final long SG_LIST = offset(IBV_RECV_WR, "sg_list");
    static final long NUM_SGE = offset(IBV_RECV_WR, "num_sge");

    private final MemorySegment wr;
    private final MemorySegment sge;
    private final MemorySegment badWr;

    public RecvWr(Arena arena) {
        this.wr = arena.allocate(IBV_RECV_WR);
        this.sge = arena.allocate(IBV_SGE);
        this.badWr = arena.allocate(ADDRESS);
        wr.set(ADDRESS, NEXT, MemorySegment.NULL);
        wr.set(ADDRESS, SG_LIST, sge);
    }

    /** A receive into {@code length} bytes at {@code address} (registered under {@code lkey}); 0 bytes: no entry. */
    public RecvWr set(long wrId, long address, int length, int lkey) {
        sge.set(JAVA_LONG, SendWr.SGE_ADDR, address);
        sge.set(JAVA_INT, SendWr.SGE_LENGTH, length);
        sge.set(JAVA_INT, SendWr.SGE_LKEY, lkey);
        wr.set(JAVA_LONG, WR_ID, wrId);
        wr.set(JAVA_INT, NUM_SGE, length == 0 ? 0 : 1);
        return this;
    }

    /** The {@code struct ibv_recv_wr}. */
    public MemorySegment segment() {
        return wr;
    }

    /** The {@code struct ibv_recv_wr *} slot the library sets to the failed request. */
    public MemorySegment badWr() {
        return badWr;
    }
}
