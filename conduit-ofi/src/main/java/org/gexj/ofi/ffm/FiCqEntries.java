package org.gexj.ofi.ffm;

import org.gexj.rdma.RdmaCompletions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A typed view of an array of {@code struct fi_cq_data_entry} (the entries of an {@link FiEq#FI_CQ_FORMAT_DATA}
 * completion queue), with a parallel array of their sources ({@code fi_addr_t}) for {@code fi_cq_readfrom}. The
 * memory is allocated once; reading a field allocates nothing.
 */
public final class FiCqEntries implements RdmaCompletions {
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
    @Override
    public long context(int i) {
        return entries.get(JAVA_LONG, i * STRIDE + FiEq.ENTRY_OP_CONTEXT);
    }

    public long flags(int i) {
        return entries.get(JAVA_LONG, i * STRIDE + FiEq.ENTRY_FLAGS);
    }

    /**
     * {@code FI_REMOTE_CQ_DATA}: a peer's write with data. The conduit never sends messages with CQ data, so this is a
     * remote write whatever other flags a provider sets (one that lands it through a posted receive may add
     * {@code FI_RECV}, and release that buffer with it).
     */
    @Override
    public boolean remoteData(int i) {
        return (flags(i) & Fabric.FI_REMOTE_CQ_DATA) != 0;
    }

    /** {@code FI_MULTI_RECV}: the multi-receive buffer is released (shm reports the release alone, without FI_RECV). */
    @Override
    public boolean releases(int i) {
        return (flags(i) & Fabric.FI_MULTI_RECV) != 0;
    }

    /** {@code len}: bytes received. */
    @Override
    public long length(int i) {
        return entries.get(JAVA_LONG, i * STRIDE + FiEq.ENTRY_LEN);
    }

    /** {@code buf}: where a received message starts, as an address. */
    @Override
    public long buffer(int i) {
        return entries.get(JAVA_LONG, i * STRIDE + FiEq.ENTRY_BUF);
    }

    /** {@code data}: the remote CQ data. */
    @Override
    public long data(int i) {
        return entries.get(JAVA_LONG, i * STRIDE + FiEq.ENTRY_DATA);
    }

    /** The source of entry {@code i} as {@link #readFrom} named it, or {@link FiEq#FI_ADDR_NOTAVAIL}. */
    @Override
    public long source(int i) {
        return sources.get(JAVA_LONG, i * JAVA_LONG.byteSize());
    }
}
