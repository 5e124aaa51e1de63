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
 * {@code <rdma/fi_eq.h>}: completion queues. {@code fi_cq_read}, {@code fi_cq_readerr} and
 * {@code fi_cq_strerror} go through the CQ's ops table; read the pointers once per CQ with {@link #readFunction} etc.
 * The data-path reads are {@linkplain Linker.Option#critical(boolean) critical} calls (no thread-state transition):
 * with manual progress they poll sockets or shared memory without blocking.
 */
public final class FiEq {
    public static final StructLayout FID_CQ = MemoryLayout.structLayout(
        Fabric.FID.withName("fid"), ADDRESS.withName("ops")).withName("fid_cq");

    public static final StructLayout FI_OPS_CQ = MemoryLayout.structLayout(
        JAVA_LONG.withName("size"), ADDRESS.withName("read"), ADDRESS.withName("readfrom"),
        ADDRESS.withName("readerr"), ADDRESS.withName("sread"), ADDRESS.withName("sreadfrom"),
        ADDRESS.withName("signal"), ADDRESS.withName("strerror")).withName("fi_ops_cq");

    public static final StructLayout FI_CQ_ATTR = MemoryLayout.structLayout(
        JAVA_LONG.withName("size"), JAVA_LONG.withName("flags"), JAVA_INT.withName("format"),
        JAVA_INT.withName("wait_obj"), JAVA_INT.withName("signaling_vector"), JAVA_INT.withName("wait_cond"),
        ADDRESS.withName("wait_set")).withName("fi_cq_attr");

    /** {@code struct fi_cq_data_entry}: the entries {@link #FI_CQ_FORMAT_DATA} CQs return. */
    public static final StructLayout FI_CQ_DATA_ENTRY = MemoryLayout.structLayout(
        ADDRESS.withName("op_context"), JAVA_LONG.withName("flags"), JAVA_LONG.withName("len"),
        ADDRESS.withName("buf"), JAVA_LONG.withName("data")).withName("fi_cq_data_entry");

    public static final StructLayout FI_CQ_ERR_ENTRY = MemoryLayout.structLayout(
        ADDRESS.withName("op_context"), JAVA_LONG.withName("flags"), JAVA_LONG.withName("len"),
        ADDRESS.withName("buf"), JAVA_LONG.withName("data"), JAVA_LONG.withName("tag"), JAVA_LONG.withName("olen"),
        JAVA_INT.withName("err"), JAVA_INT.withName("prov_errno"), ADDRESS.withName("err_data"),
        JAVA_LONG.withName("err_data_size")).withName("fi_cq_err_entry");

    public static final int FI_CQ_FORMAT_DATA = 3;
    public static final int FI_WAIT_NONE = 0;
    public static final int FI_WAIT_FD = 3;

    public static final long CQ_ATTR_SIZE = Fabric.offset(FI_CQ_ATTR, "size");
    public static final long CQ_ATTR_FORMAT = Fabric.offset(FI_CQ_ATTR, "format");
    public static final long CQ_ATTR_WAIT_OBJ = Fabric.offset(FI_CQ_ATTR, "wait_obj");
    public static final long ENTRY_OP_CONTEXT = Fabric.offset(FI_CQ_DATA_ENTRY, "op_context");
    public static final long ENTRY_FLAGS = Fabric.offset(FI_CQ_DATA_ENTRY, "flags");
    public static final long ENTRY_LEN = Fabric.offset(FI_CQ_DATA_ENTRY, "len");
    public static final long ENTRY_BUF = Fabric.offset(FI_CQ_DATA_ENTRY, "buf");
    public static final long ENTRY_DATA = Fabric.offset(FI_CQ_DATA_ENTRY, "data");
    public static final long ERR_OP_CONTEXT = Fabric.offset(FI_CQ_ERR_ENTRY, "op_context");
    public static final long ERR_FLAGS = Fabric.offset(FI_CQ_ERR_ENTRY, "flags");
    public static final long ERR_ERR = Fabric.offset(FI_CQ_ERR_ENTRY, "err");
    public static final long ERR_PROV_ERRNO = Fabric.offset(FI_CQ_ERR_ENTRY, "prov_errno");
    public static final long ERR_ERR_DATA = Fabric.offset(FI_CQ_ERR_ENTRY, "err_data");
    public static final long ERR_ERR_DATA_SIZE = Fabric.offset(FI_CQ_ERR_ENTRY, "err_data_size");

    /** {@code FI_ADDR_NOTAVAIL}: a source the address vector does not hold (or one the provider cannot tell). */
    public static final long FI_ADDR_NOTAVAIL = -1L;

    static final long CQ_OPS = Fabric.offset(FID_CQ, "ops");

    private static final MethodHandle READ = Fabric.pointer(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
        ADDRESS, JAVA_LONG), Linker.Option.critical(false));
    private static final MethodHandle READ_FROM = Fabric.pointer(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
        ADDRESS, JAVA_LONG, ADDRESS), Linker.Option.critical(false));
    private static final MethodHandle READ_ERR = Fabric.pointer(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
        ADDRESS, JAVA_LONG));
    private static final MethodHandle STRERROR = Fabric.pointer(FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS,
        JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));

    private static final MethodHandle TRYWAIT = Fabric.pointer(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
        ADDRESS, JAVA_INT));

    private FiEq() {
    }

    /**
     * {@code fi_control(cq, FI_GETWAIT, &fd)}: the file descriptor of a completion queue opened with
     * {@link #FI_WAIT_FD}.
     */
    public static int waitFd(MemorySegment cq) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment fd = arena.allocate(JAVA_INT);
            Fabric.control(cq, Fabric.FI_GETWAIT, fd, "fi_control(FI_GETWAIT)");
            return fd.get(JAVA_INT, 0);
        }
    }

    public static MemorySegment trywaitFunction(MemorySegment fabric) {
        return Fabric.function(fabric, Fabric.FABRIC_OPS, Fabric.OPS_FABRIC_TRYWAIT);
    }

    /**
     * {@code fi_trywait(fabric, fids, count)} through {@code fn} from {@link #trywaitFunction}: {@code fids} holds
     * {@code count} pointers to the objects whose wait objects the caller will block on.
     *
     * @return 0 if the caller may block now, {@code -FI_EAGAIN} if it must read the objects first, or another
     *         negative code
     */
    public static int trywait(MemorySegment fn, MemorySegment fabric, MemorySegment fids, int count) {
        try {
            return (int) TRYWAIT.invokeExact(fn, fabric, fids, count);
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_trywait", t);
        }
    }

    public static MemorySegment readFunction(MemorySegment cq) {
        return Fabric.function(cq, CQ_OPS, Fabric.offset(FI_OPS_CQ, "read"));
    }

    /**
     * {@code fi_cq_read(cq, entries, count)} through {@code fn} from {@link #readFunction}.
     *
     * @return entries read, {@code -FI_EAGAIN} if none, {@code -FI_EAVAIL} if an error entry waits, or another
     *         negative code
     */
    public static long read(MemorySegment fn, MemorySegment cq, MemorySegment entries, long count) {
        try {
            return (long) READ.invokeExact(fn, cq, entries, count);
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_cq_read", t);
        }
    }

    public static MemorySegment readFromFunction(MemorySegment cq) {
        return Fabric.function(cq, CQ_OPS, Fabric.offset(FI_OPS_CQ, "readfrom"));
    }

    /**
     * {@code fi_cq_readfrom(cq, entries, count, sources)} through {@code fn} from {@link #readFromFunction}: as
     * {@link #read}, and each entry's source address into {@code sources} ({@code fi_addr_t} each), or
     * {@link #FI_ADDR_NOTAVAIL} where the provider cannot name it in the address vector.
     */
    public static long readFrom(MemorySegment fn, MemorySegment cq, MemorySegment entries, long count,
                                MemorySegment sources) {
        try {
            return (long) READ_FROM.invokeExact(fn, cq, entries, count, sources);
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_cq_readfrom", t);
        }
    }

    /**
     * {@code fi_cq_readerr(cq, entry, 0)}.
     *
     * @return 1 if an error entry was read into {@code entry}, {@code -FI_EAGAIN} if none
     */
    public static long readError(MemorySegment cq, MemorySegment entry) {
        final MemorySegment fn = Fabric.function(cq, CQ_OPS, Fabric.offset(FI_OPS_CQ, "readerr"));
        try {
            return (long) READ_ERR.invokeExact(fn, cq, entry, 0L);
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_cq_readerr", t);
        }
    }

    /** {@code fi_cq_strerror(cq, prov_errno, err_data, NULL, 0)}: the provider's text for an error entry. */
    public static String strerror(MemorySegment cq, MemorySegment errorEntry) {
        final MemorySegment fn = Fabric.function(cq, CQ_OPS, Fabric.offset(FI_OPS_CQ, "strerror"));
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment buffer = arena.allocate(512);
            final MemorySegment text = (MemorySegment) STRERROR.invokeExact(fn, cq,
                errorEntry.get(JAVA_INT, ERR_PROV_ERRNO), errorEntry.get(ADDRESS, ERR_ERR_DATA), buffer,
                buffer.byteSize());
            final String s = text.equals(MemorySegment.NULL) ? null : buffer.getString(0);
            return s == null || s.isEmpty() ? FiErrno.strerror(errorEntry.get(JAVA_INT, ERR_ERR)) : s;
        } catch (Throwable t) {
            return FiErrno.strerror(errorEntry.get(JAVA_INT, ERR_ERR));
        }
    }
}
