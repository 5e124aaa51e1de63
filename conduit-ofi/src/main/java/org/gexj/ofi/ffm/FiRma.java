package org.gexj.ofi.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code <rdma/fi_rma.h>}: {@code fi_read}, {@code fi_writemsg} (a write with per-operation flags) and
 * {@code fi_writedata} through the endpoint's {@code rma} ops (read the pointers after {@link FiEndpoint#enable}).
 * Critical calls that return {@code -FI_EAGAIN} as a code; buffers are raw addresses so that no call allocates.
 */
public final class FiRma {
    public static final StructLayout FI_OPS_RMA = MemoryLayout.structLayout(
        JAVA_LONG.withName("size"), ADDRESS.withName("read"), ADDRESS.withName("readv"), ADDRESS.withName("readmsg"),
        ADDRESS.withName("write"), ADDRESS.withName("writev"), ADDRESS.withName("writemsg"),
        ADDRESS.withName("inject"), ADDRESS.withName("writedata"), ADDRESS.withName("injectdata"))
        .withName("fi_ops_rma");

    /** {@code struct fi_rma_iov}. */
    public static final StructLayout FI_RMA_IOV = MemoryLayout.structLayout(
        JAVA_LONG.withName("addr"), JAVA_LONG.withName("len"), JAVA_LONG.withName("key")).withName("fi_rma_iov");

    /** {@code struct fi_msg_rma}. */
    public static final StructLayout FI_MSG_RMA = MemoryLayout.structLayout(
        ADDRESS.withName("msg_iov"), ADDRESS.withName("desc"), JAVA_LONG.withName("iov_count"),
        JAVA_LONG.withName("addr"), ADDRESS.withName("rma_iov"), JAVA_LONG.withName("rma_iov_count"),
        ADDRESS.withName("context"), JAVA_LONG.withName("data")).withName("fi_msg_rma");

    static final long EP_RMA = Fabric.offset(FiEndpoint.FID_EP, "rma");
    private static final long MSG_IOV = Fabric.offset(FI_MSG_RMA, "msg_iov");
    private static final long MSG_DESC = Fabric.offset(FI_MSG_RMA, "desc");
    private static final long MSG_IOV_COUNT = Fabric.offset(FI_MSG_RMA, "iov_count");
    private static final long MSG_ADDR = Fabric.offset(FI_MSG_RMA, "addr");
    private static final long MSG_RMA_IOV = Fabric.offset(FI_MSG_RMA, "rma_iov");
    private static final long MSG_RMA_IOV_COUNT = Fabric.offset(FI_MSG_RMA, "rma_iov_count");
    private static final long MSG_CONTEXT = Fabric.offset(FI_MSG_RMA, "context");
    private static final long RMA_IOV_ADDR = Fabric.offset(FI_RMA_IOV, "addr");
    private static final long RMA_IOV_LEN = Fabric.offset(FI_RMA_IOV, "len");
    private static final long RMA_IOV_KEY = Fabric.offset(FI_RMA_IOV, "key");

    /** {@code fi_read}: (ep, buf, len, desc, src addr, remote addr, key, context). */
    // desc (void *) is passed as a raw address: a segment per call would allocate
    private static final MethodHandle TRANSFER = Fabric.pointer(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
        JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));
    private static final MethodHandle WRITEDATA = Fabric.pointer(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
        JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
        Linker.Option.critical(false));
    /** {@code fi_writemsg(ep, msg, flags)}. */
    private static final MethodHandle WRITEMSG = Fabric.pointer(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
        ADDRESS, JAVA_LONG), Linker.Option.critical(false));

    private FiRma() {
    }

    public static MemorySegment readFunction(MemorySegment ep) {
        return Fabric.function(ep, EP_RMA, Fabric.offset(FI_OPS_RMA, "read"));
    }

    public static MemorySegment writeMsgFunction(MemorySegment ep) {
        return Fabric.function(ep, EP_RMA, Fabric.offset(FI_OPS_RMA, "writemsg"));
    }

    public static MemorySegment writeDataFunction(MemorySegment ep) {
        return Fabric.function(ep, EP_RMA, Fabric.offset(FI_OPS_RMA, "writedata"));
    }

    /** {@code fi_read} through {@code fn}: 0, {@code -FI_EAGAIN}, or another negative code. */
    public static long transfer(MemorySegment fn, MemorySegment ep, long buf, long len, long desc, long peer,
                                long remoteAddress, long key, long context) {
        try {
            return (long) TRANSFER.invokeExact(fn, ep, buf, len, desc, peer, remoteAddress, key, context);
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_write/fi_read", t);
        }
    }

    /** {@code fi_writedata(ep, buf, len, desc, data, dest, addr, key, context)}. */
    public static long writeData(MemorySegment fn, MemorySegment ep, long buf, long len, long desc,
                                 long data, long peer, long remoteAddress, long key, long context) {
        try {
            return (long) WRITEDATA.invokeExact(fn, ep, buf, len, desc, data, peer, remoteAddress, key, context);
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_writedata", t);
        }
    }

    /** {@code fi_writemsg(ep, msg, flags)}: 0, {@code -FI_EAGAIN}, or another negative code. */
    public static long writeMsg(MemorySegment fn, MemorySegment ep, WriteMessage msg, long flags) {
        try {
            return (long) WRITEMSG.invokeExact(fn, ep, msg.msg, flags);
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_writemsg", t);
        }
    }

    /**
     * One {@code struct fi_msg_rma} with its single {@code iovec}, descriptor and {@code fi_rma_iov}, allocated once
     * and rewritten for every write (pointers written as addresses: a segment per pointer would allocate).
     */
    public static final class WriteMessage {
        private final MemorySegment msg;
        private final MemorySegment iov;
        private final MemorySegment descriptors;
        private final MemorySegment rmaIov;

        public WriteMessage(Arena arena) {
            this.msg = arena.allocate(FI_MSG_RMA);
            this.iov = arena.allocate(FiEndpoint.IOVEC);
            this.descriptors = arena.allocate(ADDRESS);
            this.rmaIov = arena.allocate(FI_RMA_IOV);
            msg.set(JAVA_LONG, MSG_IOV, iov.address());
            // always the array, holding 0 for none, as fi_write passes &desc: ofi_rxm over FI_MR_LOCAL providers copies
            // desc[0] unconditionally, and a null array crashed it (verbs;ofi_rxm, libfabric 1.17)
            msg.set(JAVA_LONG, MSG_DESC, descriptors.address());
            msg.set(JAVA_LONG, MSG_IOV_COUNT, 1);
            msg.set(JAVA_LONG, MSG_RMA_IOV, rmaIov.address());
            msg.set(JAVA_LONG, MSG_RMA_IOV_COUNT, 1);
        }

        /**
         * A write of {@code length} bytes at {@code local} (local {@code descriptor}, 0 for none) to {@code remote}
         * with {@code key} at {@code peer}, completing with {@code context}.
         */
        public WriteMessage set(long local, long length, long descriptor, long peer, long remote, long key,
                                long context) {
            iov.set(JAVA_LONG, FiEndpoint.IOV_BASE, local);
            iov.set(JAVA_LONG, FiEndpoint.IOV_LEN, length);
            descriptors.set(JAVA_LONG, 0, descriptor);
            msg.set(JAVA_LONG, MSG_ADDR, peer);
            rmaIov.set(JAVA_LONG, RMA_IOV_ADDR, remote);
            rmaIov.set(JAVA_LONG, RMA_IOV_LEN, length);
            rmaIov.set(JAVA_LONG, RMA_IOV_KEY, key);
            msg.set(JAVA_LONG, MSG_CONTEXT, context);
            return this;
        }
    }
}
