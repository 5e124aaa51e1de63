package org.gexj.ofi.ffm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code <rdma/fi_rma.h>}: {@code fi_write}, {@code fi_read} and {@code fi_writedata} through the endpoint's
 * {@code rma} ops (read the pointers after {@link FiEndpoint#enable}). Critical calls that return {@code -FI_EAGAIN}
 * as a code; buffers are raw addresses so that no call allocates.
 */
public final class FiRma {
    public static final StructLayout FI_OPS_RMA = MemoryLayout.structLayout(
        JAVA_LONG.withName("size"), ADDRESS.withName("read"), ADDRESS.withName("readv"), ADDRESS.withName("readmsg"),
        ADDRESS.withName("write"), ADDRESS.withName("writev"), ADDRESS.withName("writemsg"),
        ADDRESS.withName("inject"), ADDRESS.withName("writedata"), ADDRESS.withName("injectdata"))
        .withName("fi_ops_rma");

    static final long EP_RMA = Fabric.offset(FiEndpoint.FID_EP, "rma");

    /** {@code fi_read} and {@code fi_write}: (ep, buf, len, desc, src/dest addr, remote addr, key, context). */
    // desc (void *) is passed as a raw address: a segment per call would allocate
    private static final MethodHandle TRANSFER = Fabric.pointer(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
        JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));
    private static final MethodHandle WRITEDATA = Fabric.pointer(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
        JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
        Linker.Option.critical(false));

    private FiRma() {
    }

    public static MemorySegment readFunction(MemorySegment ep) {
        return Fabric.function(ep, EP_RMA, Fabric.offset(FI_OPS_RMA, "read"));
    }

    public static MemorySegment writeFunction(MemorySegment ep) {
        return Fabric.function(ep, EP_RMA, Fabric.offset(FI_OPS_RMA, "write"));
    }

    public static MemorySegment writeDataFunction(MemorySegment ep) {
        return Fabric.function(ep, EP_RMA, Fabric.offset(FI_OPS_RMA, "writedata"));
    }

    /** {@code fi_write} or {@code fi_read} (by {@code fn}): 0, {@code -FI_EAGAIN}, or another negative code. */
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
}
