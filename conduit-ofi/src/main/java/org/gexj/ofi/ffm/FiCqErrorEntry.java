package org.gexj.ofi.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** A typed view of one {@code struct fi_cq_err_entry}, allocated once and read into by {@link #read}. */
public final class FiCqErrorEntry {
    private final MemorySegment entry;

    public FiCqErrorEntry(Arena arena) {
        this.entry = arena.allocate(FiEq.FI_CQ_ERR_ENTRY);
    }

    /**
     * {@code fi_cq_readerr(cq, entry, 0)}.
     *
     * @return 1 if an error entry was read, {@code -FI_EAGAIN} if none
     */
    public long read(MemorySegment cq) {
        return FiEq.readError(cq, entry);
    }

    /** {@code op_context}: the context address of the operation that failed (0 for none). */
    public long context() {
        return entry.get(JAVA_LONG, FiEq.ERR_OP_CONTEXT);
    }

    /** {@code err}: the positive errno. */
    public int error() {
        return entry.get(JAVA_INT, FiEq.ERR_ERR);
    }

    /** The provider's text for the error and its errno, as "text (err)". */
    public String text(MemorySegment cq) {
        return FiEq.strerror(cq, entry) + " (" + error() + ")";
    }
}
