package org.gexj.ofi.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A typed view of one {@code struct fi_msg} with its single {@code struct iovec} and one-element descriptor array,
 * allocated once and rewritten for every post: the pointers are written as addresses, as a segment per pointer would
 * allocate at every repost.
 */
public final class FiMsg {
    private final MemorySegment msg;
    private final MemorySegment iov;
    /** The one-element {@code void *desc[]}. */
    private final MemorySegment descriptors;

    public FiMsg(Arena arena) {
        this.msg = arena.allocate(FiEndpoint.FI_MSG_STRUCT);
        this.iov = arena.allocate(FiEndpoint.IOVEC);
        this.descriptors = arena.allocate(ADDRESS);
    }

    /**
     * Describes one buffer of {@code length} bytes at {@code base} with local {@code descriptor} (0 for none), from
     * any source, with {@code context}.
     */
    public FiMsg set(long base, long length, long descriptor, long context) {
        iov.set(JAVA_LONG, FiEndpoint.IOV_BASE, base);
        iov.set(JAVA_LONG, FiEndpoint.IOV_LEN, length);
        msg.set(JAVA_LONG, FiEndpoint.MSG_IOV, iov.address());
        descriptors.set(JAVA_LONG, 0, descriptor);
        msg.set(JAVA_LONG, FiEndpoint.MSG_DESC, descriptor == 0 ? 0 : descriptors.address());
        msg.set(JAVA_LONG, FiEndpoint.MSG_IOV_COUNT, 1);
        msg.set(JAVA_LONG, FiEndpoint.MSG_ADDR, FiEndpoint.FI_ADDR_UNSPEC);
        msg.set(JAVA_LONG, FiEndpoint.MSG_CONTEXT, context);
        return this;
    }

    /** The {@code struct fi_msg} itself, for {@link FiEndpoint#recvMsg}. */
    public MemorySegment segment() {
        return msg;
    }
}
