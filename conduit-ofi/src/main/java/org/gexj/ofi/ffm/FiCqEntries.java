package org.gexj.ofi.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A typed view of an array of {@code struct fi_cq_data_entry} (the entries of an {@link FiEq#FI_CQ_FORMAT_DATA}
 * completion queue), with a parallel array of their sources ({@code fi_addr_t}) for {@code fi_cq_readfrom}. The
 * memory is allocated once; reading a field allocates nothing.
 */
public final class FiCqEntries {
    private static final long STRIDE = FiEq.FI_CQ_DATA_ENTRY.byteSize();

    private final MemorySegment entries;
    private final MemorySegment sources;
    private final int capacity;

    /** Entries for {@code capacity} completions, and their sources, in {@code arena}. */
    public FiCqEntries(Arena arena, int capacity) {
        this.entries = arena.allocate(STRIDE * capacity, 8);
        this.sources = arena.allocate(JAVA_LONG.byteSize() * capacity, 8);
        this.capacity = capacity;
    }

    public int capacity() {
        return capacity;
    }

    /**
     * {@code fi_cq_read(cq, entries, count)} through {@code fn} from {@link FiEq#readFunction}: as
     * {@link FiEq#read}, into this array.
     */
    public long read(MemorySegment fn, MemorySegment cq, int count) {
        return FiEq.read(fn, cq, entries, count);
    }

    /** {@code fi_cq_readfrom} through {@code fn} from {@link FiEq#readFromFunction}: as {@link FiEq#readFrom}. */
    public long readFrom(MemorySegment fn, MemorySegment cq, int count) {
        return FiEq.readFrom(fn, cq, entries, count, sources);
    }

    /** {@code op_context} of entry {@code i}: the context address the operation was posted with. */
    public long context(int i) {
        return entries.get(JAVA_LONG, i * STRIDE + FiEq.ENTRY_OP_CONTEXT);
    }

    public long flags(int i) {
        return entries.get(JAVA_LONG, i * STRIDE + FiEq.ENTRY_FLAGS);
    }

    /** {@code len}: bytes received. */
    public long length(int i) {
        return entries.get(JAVA_LONG, i * STRIDE + FiEq.ENTRY_LEN);
    }

    /** {@code buf}: where a received message starts, as an address. */
    public long buffer(int i) {
        return entries.get(JAVA_LONG, i * STRIDE + FiEq.ENTRY_BUF);
    }

    /** {@code data}: the remote CQ data. */
    public long data(int i) {
        return entries.get(JAVA_LONG, i * STRIDE + FiEq.ENTRY_DATA);
    }

    /** The source of entry {@code i} as {@link #readFrom} named it, or {@link FiEq#FI_ADDR_NOTAVAIL}. */
    public long source(int i) {
        return sources.get(JAVA_LONG, i * JAVA_LONG.byteSize());
    }
}
