package org.gexj.ofi.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code <rdma/fi_atomic.h>}: {@code fi_atomic}, {@code fi_fetch_atomic} and {@code fi_compare_atomic} through the
 * endpoint's {@code atomic} ops (read the pointers after {@link FiEndpoint#enable}), and {@code fi_query_atomic}
 * through the domain's ops. The operations are critical calls returning {@code -FI_EAGAIN} as a code; buffers and
 * descriptors are raw addresses so that no call allocates.
 */
public final class FiAtomic {
    public static final StructLayout FI_OPS_ATOMIC = MemoryLayout.structLayout(
        JAVA_LONG.withName("size"), ADDRESS.withName("write"), ADDRESS.withName("writev"),
        ADDRESS.withName("writemsg"), ADDRESS.withName("inject"), ADDRESS.withName("readwrite"),
        ADDRESS.withName("readwritev"), ADDRESS.withName("readwritemsg"), ADDRESS.withName("compwrite"),
        ADDRESS.withName("compwritev"), ADDRESS.withName("compwritemsg"), ADDRESS.withName("writevalid"),
        ADDRESS.withName("readwritevalid"), ADDRESS.withName("compwritevalid")).withName("fi_ops_atomic");

    /** {@code struct fi_atomic_attr}. */
    public static final StructLayout FI_ATOMIC_ATTR = MemoryLayout.structLayout(
        JAVA_LONG.withName("count"), JAVA_LONG.withName("size")).withName("fi_atomic_attr");

    /** {@code fi_query_atomic} flag: the fetching form. */
    public static final long FI_FETCH_ATOMIC = 1L << 58;
    /** {@code fi_query_atomic} flag: the compare form. */
    public static final long FI_COMPARE_ATOMIC = 1L << 59;

    static final long EP_ATOMIC = Fabric.offset(FiEndpoint.FID_EP, "atomic");
    private static final long OPS_QUERY_ATOMIC = Fabric.offset(FiDomain.FI_OPS_DOMAIN, "query_atomic");

    /** {@code write(ep, buf, count, desc, dest, addr, key, datatype, op, context)}. */
    private static final MethodHandle WRITE = Fabric.pointer(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
        JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG),
        Linker.Option.critical(false));
    /** {@code readwrite(ep, buf, count, desc, result, result_desc, dest, addr, key, datatype, op, context)}. */
    private static final MethodHandle READWRITE = Fabric.pointer(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
        JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT,
        JAVA_LONG), Linker.Option.critical(false));
    /**
     * {@code compwrite(ep, buf, count, desc, compare, compare_desc, result, result_desc, dest, addr, key, datatype,
     * op, context)}.
     */
    private static final MethodHandle COMPWRITE = Fabric.pointer(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
        JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
        JAVA_INT, JAVA_INT, JAVA_LONG), Linker.Option.critical(false));
    /** {@code query_atomic(domain, datatype, op, attr, flags)}. */
    private static final MethodHandle QUERY = Fabric.pointer(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
        JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG));

    private FiAtomic() {
    }

    /** The endpoint's {@code atomic} ops table, or NULL where the provider has none (no {@code FI_ATOMIC}). */
    public static MemorySegment ops(MemorySegment ep) {
        return ep.reinterpret(EP_ATOMIC + ADDRESS.byteSize()).get(ADDRESS, EP_ATOMIC);
    }

    public static MemorySegment writeFunction(MemorySegment ep) {
        return Fabric.function(ep, EP_ATOMIC, Fabric.offset(FI_OPS_ATOMIC, "write"));
    }

    public static MemorySegment readWriteFunction(MemorySegment ep) {
        return Fabric.function(ep, EP_ATOMIC, Fabric.offset(FI_OPS_ATOMIC, "readwrite"));
    }

    public static MemorySegment compWriteFunction(MemorySegment ep) {
        return Fabric.function(ep, EP_ATOMIC, Fabric.offset(FI_OPS_ATOMIC, "compwrite"));
    }

    /**
     * {@code fi_query_atomic(domain, datatype, op, &attr, flags)}: whether the domain performs {@code op} on one
     * {@code datatype} value in the form {@code flags} names (0, {@link #FI_FETCH_ATOMIC}, {@link #FI_COMPARE_ATOMIC}).
     * False where the provider's ops table predates the call.
     */
    public static boolean query(MemorySegment domain, int datatype, int op, long flags) {
        final MemorySegment ops = domain.reinterpret(FiDomain.DOMAIN_OPS + ADDRESS.byteSize())
            .get(ADDRESS, FiDomain.DOMAIN_OPS).reinterpret(FiDomain.FI_OPS_DOMAIN.byteSize());
        if (ops.get(JAVA_LONG, 0) <= OPS_QUERY_ATOMIC) {
            return false; // FI_CHECK_OP: the table is shorter than the entry
        }
        final MemorySegment fn = ops.get(ADDRESS, OPS_QUERY_ATOMIC);
        if (fn.equals(MemorySegment.NULL)) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment attr = arena.allocate(FI_ATOMIC_ATTR);
            final int rc = (int) QUERY.invokeExact(fn, domain, datatype, op, attr, flags);
            return rc == 0 && attr.get(JAVA_LONG, 0) >= 1;
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_query_atomic", t);
        }
    }

    /** {@code fi_atomic} through {@code fn}: 0, {@code -FI_EAGAIN}, or another negative code. */
    public static long write(MemorySegment fn, MemorySegment ep, long buf, long desc, long peer, long addr, long key,
                             int datatype, int op, long context) {
        try {
            return (long) WRITE.invokeExact(fn, ep, buf, 1L, desc, peer, addr, key, datatype, op, context);
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_atomic", t);
        }
    }

    /** {@code fi_fetch_atomic} through {@code fn}: 0, {@code -FI_EAGAIN}, or another negative code. */
    public static long readWrite(MemorySegment fn, MemorySegment ep, long buf, long desc, long result,
                                 long resultDesc, long peer, long addr, long key, int datatype, int op, long context) {
        try {
            return (long) READWRITE.invokeExact(fn, ep, buf, 1L, desc, result, resultDesc, peer, addr, key, datatype,
                op, context);
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_fetch_atomic", t);
        }
    }

    /** {@code fi_compare_atomic} through {@code fn}: 0, {@code -FI_EAGAIN}, or another negative code. */
    public static long compWrite(MemorySegment fn, MemorySegment ep, long buf, long desc, long compare,
                                 long compareDesc, long result, long resultDesc, long peer, long addr, long key,
                                 int datatype, int op, long context) {
        try {
            return (long) COMPWRITE.invokeExact(fn, ep, buf, 1L, desc, compare, compareDesc, result, resultDesc, peer,
                addr, key, datatype, op, context);
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_compare_atomic", t);
        }
    }
}
