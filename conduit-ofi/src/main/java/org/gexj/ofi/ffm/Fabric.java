package org.gexj.ofi.ffm;

import org.gexj.spi.NativeLibrary;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.util.List;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code <rdma/fabric.h>}: the library, {@code fi_getinfo}/{@code fi_freeinfo}/{@code fi_dupinfo}, {@code fi_fabric},
 * {@code fi_tostr_r}, {@code fi_version}, the {@code fi_info} family of structs, {@code struct fid} with its
 * {@code fi_ops} ({@code fi_close}, {@code fi_bind}, {@code fi_control}), and the capability, mode and memory
 * registration bits.
 *
 * <p>Only the functions of section 1.5 of the facts file are exported by {@code libfabric.so.1}; everything else is a
 * {@code static inline} in the headers that calls through a function pointer of an ops table. Those are bound here and
 * in the sibling classes as one {@link MethodHandle} per C signature whose first argument is the function pointer,
 * read from the object's ops table ({@link #function}); callers read the pointers once per object and keep them.
 *
 * <p>Struct layouts are x86_64 (LP64), checked against the library by {@code FabricLayoutTest}.
 */
public final class Fabric {
    static final Linker LINKER = Linker.nativeLinker();
    /**
     * Before the load: Debian's libfabric links libinfinipath, whose constructor takes SIGSEGV, SIGBUS and SIGILL
     * unless {@code IPATH_NO_BACKTRACE} is set. The JVM uses SIGSEGV itself (safepoint polls, implicit null checks):
     * without libjsig the JVM lost its handler and died at its next use (gexrun's launcher, at exit: "terminated with
     * signal 11"); with libjsig a real crash ended in that handler before the JVM wrote its report. A value the user
     * set is kept. Should setenv fail (out of memory), the load goes ahead: the JVM's crash reports are at stake, not
     * the conduit.
     */
    private static final NativeLibrary LIBRARY;

    static {
        Stdlib.setenvUnlessSet("IPATH_NO_BACKTRACE", "1");
        LIBRARY = NativeLibrary.load("libfabric.so.1", "install the Debian package libfabric1", null,
            List.of("libfabric.so.1"));
    }

    /** Why libfabric.so.1 could not be loaded, or null. Nothing else in this package may be used if not null. */
    public static Throwable loadFailure() {
        return LIBRARY.failure();
    }

    // ------------------------------------------------------------------------------------------------ constants

    public static final int FI_MAJOR_VERSION = 1;
    public static final int FI_MINOR_VERSION = 17;

    public static int version(int major, int minor) {
        return (major << 16) | minor;
    }

    // capabilities and operation flags (uint64_t)
    public static final long FI_MSG = 1L << 1;
    public static final long FI_RMA = 1L << 2;
    public static final long FI_TAGGED = 1L << 3;
    public static final long FI_ATOMIC = 1L << 4;
    public static final long FI_READ = 1L << 8;
    public static final long FI_WRITE = 1L << 9;
    public static final long FI_RECV = 1L << 10;
    public static final long FI_SEND = 1L << 11;
    public static final long FI_TRANSMIT = FI_SEND;
    public static final long FI_REMOTE_READ = 1L << 12;
    public static final long FI_REMOTE_WRITE = 1L << 13;
    public static final long FI_MULTI_RECV = 1L << 16;
    public static final long FI_REMOTE_CQ_DATA = 1L << 17;
    public static final long FI_COMPLETION = 1L << 24;
    public static final long FI_INJECT = 1L << 25;
    public static final long FI_TRANSMIT_COMPLETE = 1L << 27;
    public static final long FI_DELIVERY_COMPLETE = 1L << 28;
    public static final long FI_SOURCE = 1L << 57;
    // mode bits
    public static final long FI_BUFFERED_RECV = 1L << 51;
    public static final long FI_CONTEXT2 = 1L << 52;
    public static final long FI_RX_CQ_DATA = 1L << 56;
    public static final long FI_MSG_PREFIX = 1L << 58;
    public static final long FI_CONTEXT = 1L << 59;
    // domain_attr.mr_mode bits
    public static final int FI_MR_LOCAL = 1 << 2;
    public static final int FI_MR_RAW = 1 << 3;
    public static final int FI_MR_VIRT_ADDR = 1 << 4;
    public static final int FI_MR_ALLOCATED = 1 << 5;
    public static final int FI_MR_PROV_KEY = 1 << 6;
    public static final int FI_MR_MMU_NOTIFY = 1 << 7;
    public static final int FI_MR_RMA_EVENT = 1 << 8;
    public static final int FI_MR_ENDPOINT = 1 << 9;
    public static final int FI_MR_HMEM = 1 << 10;
    // enum fi_ep_type, fi_av_type, fi_threading, fi_progress
    public static final int FI_EP_MSG = 1;
    public static final int FI_EP_RDM = 3;
    public static final int FI_AV_TABLE = 2;
    public static final int FI_THREAD_SAFE = 1;
    public static final int FI_THREAD_DOMAIN = 3;
    public static final int FI_PROGRESS_AUTO = 1;
    public static final int FI_PROGRESS_MANUAL = 2;
    // enum fi_type (fi_tostr)
    public static final int FI_TYPE_INFO = 0;
    public static final int FI_TYPE_CAPS = 2;
    public static final int FI_TYPE_MR_MODE = 21;
    // fi_control commands
    public static final int FI_GETWAIT = 5;
    public static final int FI_ENABLE = 6;

    // ------------------------------------------------------------------------------------------------ layouts

    private static final AddressLayout PTR = ADDRESS;

    public static final StructLayout FI_TX_ATTR = MemoryLayout.structLayout(
        JAVA_LONG.withName("caps"), JAVA_LONG.withName("mode"), JAVA_LONG.withName("op_flags"),
        JAVA_LONG.withName("msg_order"), JAVA_LONG.withName("comp_order"), JAVA_LONG.withName("inject_size"),
        JAVA_LONG.withName("size"), JAVA_LONG.withName("iov_limit"), JAVA_LONG.withName("rma_iov_limit"),
        JAVA_INT.withName("tclass"), MemoryLayout.paddingLayout(4)).withName("fi_tx_attr");

    public static final StructLayout FI_RX_ATTR = MemoryLayout.structLayout(
        JAVA_LONG.withName("caps"), JAVA_LONG.withName("mode"), JAVA_LONG.withName("op_flags"),
        JAVA_LONG.withName("msg_order"), JAVA_LONG.withName("comp_order"),
        JAVA_LONG.withName("total_buffered_recv"), JAVA_LONG.withName("size"), JAVA_LONG.withName("iov_limit"))
        .withName("fi_rx_attr");

    public static final StructLayout FI_EP_ATTR = MemoryLayout.structLayout(
        JAVA_INT.withName("type"), JAVA_INT.withName("protocol"), JAVA_INT.withName("protocol_version"),
        MemoryLayout.paddingLayout(4), JAVA_LONG.withName("max_msg_size"), JAVA_LONG.withName("msg_prefix_size"),
        JAVA_LONG.withName("max_order_raw_size"), JAVA_LONG.withName("max_order_war_size"),
        JAVA_LONG.withName("max_order_waw_size"), JAVA_LONG.withName("mem_tag_format"),
        JAVA_LONG.withName("tx_ctx_cnt"), JAVA_LONG.withName("rx_ctx_cnt"), JAVA_LONG.withName("auth_key_size"),
        PTR.withName("auth_key")).withName("fi_ep_attr");

    public static final StructLayout FI_DOMAIN_ATTR = MemoryLayout.structLayout(
        PTR.withName("domain"), PTR.withName("name"), JAVA_INT.withName("threading"),
        JAVA_INT.withName("control_progress"), JAVA_INT.withName("data_progress"),
        JAVA_INT.withName("resource_mgmt"), JAVA_INT.withName("av_type"), JAVA_INT.withName("mr_mode"),
        JAVA_LONG.withName("mr_key_size"), JAVA_LONG.withName("cq_data_size"), JAVA_LONG.withName("cq_cnt"),
        JAVA_LONG.withName("ep_cnt"), JAVA_LONG.withName("tx_ctx_cnt"), JAVA_LONG.withName("rx_ctx_cnt"),
        JAVA_LONG.withName("max_ep_tx_ctx"), JAVA_LONG.withName("max_ep_rx_ctx"),
        JAVA_LONG.withName("max_ep_stx_ctx"), JAVA_LONG.withName("max_ep_srx_ctx"), JAVA_LONG.withName("cntr_cnt"),
        JAVA_LONG.withName("mr_iov_limit"), JAVA_LONG.withName("caps"), JAVA_LONG.withName("mode"),
        PTR.withName("auth_key"), JAVA_LONG.withName("auth_key_size"), JAVA_LONG.withName("max_err_data"),
        JAVA_LONG.withName("mr_cnt"), JAVA_INT.withName("tclass"), MemoryLayout.paddingLayout(4))
        .withName("fi_domain_attr");

    public static final StructLayout FI_FABRIC_ATTR = MemoryLayout.structLayout(
        PTR.withName("fabric"), PTR.withName("name"), PTR.withName("prov_name"), JAVA_INT.withName("prov_version"),
        JAVA_INT.withName("api_version")).withName("fi_fabric_attr");

    public static final StructLayout FI_INFO = MemoryLayout.structLayout(
        PTR.withName("next"), JAVA_LONG.withName("caps"), JAVA_LONG.withName("mode"),
        JAVA_INT.withName("addr_format"), MemoryLayout.paddingLayout(4), JAVA_LONG.withName("src_addrlen"),
        JAVA_LONG.withName("dest_addrlen"), PTR.withName("src_addr"), PTR.withName("dest_addr"),
        PTR.withName("handle"), PTR.withName("tx_attr"), PTR.withName("rx_attr"), PTR.withName("ep_attr"),
        PTR.withName("domain_attr"), PTR.withName("fabric_attr"), PTR.withName("nic")).withName("fi_info");

    /** {@code struct fid}: the head of every libfabric object. */
    public static final StructLayout FID = MemoryLayout.structLayout(
        JAVA_LONG.withName("fclass"), PTR.withName("context"), PTR.withName("ops")).withName("fid");

    /** {@code struct fi_ops}: the operations every object has. */
    public static final StructLayout FI_OPS = MemoryLayout.structLayout(
        JAVA_LONG.withName("size"), PTR.withName("close"), PTR.withName("bind"), PTR.withName("control"),
        PTR.withName("ops_open"), PTR.withName("tostr"), PTR.withName("ops_set")).withName("fi_ops");

    /** {@code struct fid_fabric}. */
    public static final StructLayout FID_FABRIC = MemoryLayout.structLayout(
        FID.withName("fid"), PTR.withName("ops"), JAVA_INT.withName("api_version"), MemoryLayout.paddingLayout(4))
        .withName("fid_fabric");

    /** {@code struct fi_ops_fabric}. */
    public static final StructLayout FI_OPS_FABRIC = MemoryLayout.structLayout(
        JAVA_LONG.withName("size"), PTR.withName("domain"), PTR.withName("passive_ep"), PTR.withName("eq_open"),
        PTR.withName("wait_open"), PTR.withName("trywait"), PTR.withName("domain2")).withName("fi_ops_fabric");

    /** Byte offset of a field of {@code layout}. */
    public static long offset(StructLayout layout, String field) {
        return layout.byteOffset(groupElement(field));
    }

    /** Byte offset of a field inside a nested struct field, e.g. ("fid", "ops"). */
    static long offset(StructLayout layout, String field, String inner) {
        return layout.byteOffset(groupElement(field), groupElement(inner));
    }

    // fi_info and its attribute structs, as the other classes and the conduit read them
    public static final long INFO_CAPS = offset(FI_INFO, "caps");
    public static final long INFO_MODE = offset(FI_INFO, "mode");
    public static final long INFO_NEXT = offset(FI_INFO, "next");
    public static final long INFO_TX_ATTR = offset(FI_INFO, "tx_attr");
    public static final long INFO_RX_ATTR = offset(FI_INFO, "rx_attr");
    public static final long INFO_EP_ATTR = offset(FI_INFO, "ep_attr");
    public static final long INFO_DOMAIN_ATTR = offset(FI_INFO, "domain_attr");
    public static final long INFO_FABRIC_ATTR = offset(FI_INFO, "fabric_attr");
    public static final long TX_CAPS = offset(FI_TX_ATTR, "caps");
    public static final long TX_INJECT_SIZE = offset(FI_TX_ATTR, "inject_size");
    public static final long TX_SIZE = offset(FI_TX_ATTR, "size");
    public static final long TX_MODE = offset(FI_TX_ATTR, "mode");
    public static final long RX_CAPS = offset(FI_RX_ATTR, "caps");
    public static final long RX_MODE = offset(FI_RX_ATTR, "mode");
    public static final long RX_SIZE = offset(FI_RX_ATTR, "size");
    public static final long EP_TYPE = offset(FI_EP_ATTR, "type");
    public static final long EP_MAX_MSG_SIZE = offset(FI_EP_ATTR, "max_msg_size");
    public static final long DOMAIN_NAME = offset(FI_DOMAIN_ATTR, "name");
    public static final long DOMAIN_THREADING = offset(FI_DOMAIN_ATTR, "threading");
    public static final long DOMAIN_DATA_PROGRESS = offset(FI_DOMAIN_ATTR, "data_progress");
    public static final long DOMAIN_CONTROL_PROGRESS = offset(FI_DOMAIN_ATTR, "control_progress");
    public static final long DOMAIN_AV_TYPE = offset(FI_DOMAIN_ATTR, "av_type");
    public static final long DOMAIN_MR_MODE = offset(FI_DOMAIN_ATTR, "mr_mode");
    public static final long DOMAIN_MR_KEY_SIZE = offset(FI_DOMAIN_ATTR, "mr_key_size");
    public static final long DOMAIN_CQ_DATA_SIZE = offset(FI_DOMAIN_ATTR, "cq_data_size");
    public static final long FABRIC_NAME = offset(FI_FABRIC_ATTR, "name");
    public static final long FABRIC_PROV_NAME = offset(FI_FABRIC_ATTR, "prov_name");

    static final long FID_OPS = offset(FID, "ops");
    static final long OPS_CLOSE = offset(FI_OPS, "close");
    static final long OPS_BIND = offset(FI_OPS, "bind");
    static final long OPS_CONTROL = offset(FI_OPS, "control");
    static final long FABRIC_OPS = offset(FID_FABRIC, "ops");
    static final long OPS_FABRIC_DOMAIN = offset(FI_OPS_FABRIC, "domain");
    static final long OPS_FABRIC_TRYWAIT = offset(FI_OPS_FABRIC, "trywait");

    // ------------------------------------------------------------------------------------------------ binding helpers

    /** An exported function of libfabric.so.1. */
    static MethodHandle exported(String name, FunctionDescriptor descriptor) {
        return LIBRARY.downcall(name, descriptor);
    }

    /**
     * A call through a function pointer. {@code descriptor} lists the pointer as its first argument, then the C
     * function's own; the handle takes them in that order.
     */
    static MethodHandle pointer(FunctionDescriptor descriptor, Linker.Option... options) {
        final java.util.List<MemoryLayout> args = descriptor.argumentLayouts();
        final MemoryLayout[] own = args.subList(1, args.size()).toArray(MemoryLayout[]::new);
        final FunctionDescriptor c = descriptor.returnLayout().map(r -> FunctionDescriptor.of(r, own))
            .orElseGet(() -> FunctionDescriptor.ofVoid(own));
        return LINKER.downcallHandle(c, options);
    }

    /**
     * The function pointer at {@code functionOffset} of the ops table that {@code object} points to at
     * {@code opsOffset}: {@code *(*(object + opsOffset) + functionOffset)}.
     */
    public static MemorySegment function(MemorySegment object, long opsOffset, long functionOffset) {
        final MemorySegment ops = object.reinterpret(opsOffset + ADDRESS.byteSize()).get(ADDRESS, opsOffset);
        if (ops.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("libfabric object at " + object + " has no ops table at +" + opsOffset);
        }
        final MemorySegment fn = ops.reinterpret(functionOffset + ADDRESS.byteSize()).get(ADDRESS, functionOffset);
        if (fn.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("libfabric object at " + object + ": ops table entry +" + functionOffset
                + " is NULL (the provider does not implement this call)");
        }
        return fn;
    }

    /** {@code *pointer} for a pointer-to-pointer out-parameter. */
    public static MemorySegment deref(MemorySegment pointerToPointer) {
        return pointerToPointer.get(ADDRESS, 0);
    }

    /** A {@code const char*} read as a Java string, or null for NULL. */
    public static String string(MemorySegment cString) {
        return cString.equals(MemorySegment.NULL) ? null : cString.reinterpret(4096).getString(0);
    }

    // ------------------------------------------------------------------------------------------------ exported calls

    private static final class Exported {
        static final MethodHandle GETINFO = exported("fi_getinfo", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS,
            ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
        static final MethodHandle FREEINFO = exported("fi_freeinfo", FunctionDescriptor.ofVoid(ADDRESS));
        static final MethodHandle DUPINFO = exported("fi_dupinfo", FunctionDescriptor.of(ADDRESS, ADDRESS));
        static final MethodHandle FABRIC = exported("fi_fabric", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
            ADDRESS));
        static final MethodHandle VERSION = exported("fi_version", FunctionDescriptor.of(JAVA_INT));
        static final MethodHandle TOSTR_R = exported("fi_tostr_r", FunctionDescriptor.of(ADDRESS, ADDRESS,
            JAVA_LONG, ADDRESS, JAVA_INT));
    }

    private static final MethodHandle CLOSE = pointer(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle BIND = pointer(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
        JAVA_LONG));
    private static final MethodHandle CONTROL = pointer(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT,
        ADDRESS));
    private static final MethodHandle DOMAIN = pointer(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
        ADDRESS, ADDRESS));

    private Fabric() {
    }

    /** {@code fi_version()}: the library's API version. */
    public static int fiVersion() {
        try {
            return (int) Exported.VERSION.invokeExact();
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_version", t);
        }
    }

    /**
     * {@code fi_getinfo}.
     *
     * @return the list's head (free with {@link #freeInfo}), or {@link MemorySegment#NULL} when nothing matches
     *         ({@code -FI_ENODATA})
     * @throws org.gexj.ofi.OfiException for any other error
     */
    public static MemorySegment getInfo(int version, String node, String service, long flags, MemorySegment hints) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment out = arena.allocate(ADDRESS);
            final MemorySegment nodeString = node == null ? MemorySegment.NULL : arena.allocateFrom(node);
            final MemorySegment serviceString = service == null ? MemorySegment.NULL : arena.allocateFrom(service);
            final int rc = (int) Exported.GETINFO.invokeExact(version, nodeString, serviceString, flags, hints, out);
            if (rc == -FiErrno.FI_ENODATA) {
                return MemorySegment.NULL;
            }
            FiErrno.check("fi_getinfo", rc);
            return deref(out).reinterpret(FI_INFO.byteSize());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_getinfo", t);
        }
    }

    /** {@code fi_freeinfo}: frees a whole list, and the strings hung on it with {@code malloc}. */
    public static void freeInfo(MemorySegment info) {
        try {
            Exported.FREEINFO.invokeExact(info);
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_freeinfo", t);
        }
    }

    /** {@code fi_dupinfo(info)}; {@code fi_allocinfo()} is {@code fi_dupinfo(NULL)}. */
    public static MemorySegment dupInfo(MemorySegment info) {
        try {
            final MemorySegment copy = (MemorySegment) Exported.DUPINFO.invokeExact(info);
            if (copy.equals(MemorySegment.NULL)) {
                throw new org.gexj.ofi.OfiException("fi_dupinfo", -FiErrno.FI_ENOMEM, "out of memory");
            }
            return copy.reinterpret(FI_INFO.byteSize());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_dupinfo", t);
        }
    }

    /** An attribute struct hung on an {@code fi_info}, sized by its layout. */
    public static MemorySegment attr(MemorySegment info, long field, StructLayout layout) {
        return info.get(ADDRESS, field).reinterpret(layout.byteSize());
    }

    /** {@code fi_tostr_r(data, type)}: libfabric's own text for a struct or a bit set. */
    public static String toStr(MemorySegment data, int type) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment buffer = arena.allocate(1 << 16);
            final MemorySegment text = (MemorySegment) Exported.TOSTR_R.invokeExact(buffer, buffer.byteSize(), data,
                type);
            return text.equals(MemorySegment.NULL) ? "" : buffer.getString(0);
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_tostr_r", t);
        }
    }

    /** {@code fi_tostr_r} of {@code domain_attr->mr_mode} bits, or "none". */
    public static String mrModeText(int mrMode) {
        try (Arena arena = Arena.ofConfined()) {
            final String text = toStr(arena.allocateFrom(JAVA_INT, mrMode), FI_TYPE_MR_MODE).trim();
            return text.isEmpty() ? "none" : text;
        }
    }

    /** {@code fi_fabric(info->fabric_attr, &fabric, NULL)}. */
    public static MemorySegment openFabric(MemorySegment fabricAttr) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment out = arena.allocate(ADDRESS);
            FiErrno.check("fi_fabric", (int) Exported.FABRIC.invokeExact(fabricAttr, out, MemorySegment.NULL));
            return deref(out).reinterpret(FID_FABRIC.byteSize());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_fabric", t);
        }
    }

    /** {@code fi_domain(fabric, info, &domain, NULL)}, through the fabric's ops. */
    public static MemorySegment openDomain(MemorySegment fabric, MemorySegment info) {
        final MemorySegment fn = function(fabric, FABRIC_OPS, OPS_FABRIC_DOMAIN);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment out = arena.allocate(ADDRESS);
            FiErrno.check("fi_domain", (int) DOMAIN.invokeExact(fn, fabric, info, out, MemorySegment.NULL));
            return deref(out).reinterpret(FiDomain.FID_DOMAIN.byteSize());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_domain", t);
        }
    }

    /** {@code fi_close(fid)}. */
    public static void close(MemorySegment fid, String what) {
        final MemorySegment fn = function(fid, FID_OPS, OPS_CLOSE);
        try {
            FiErrno.check("fi_close(" + what + ")", (int) CLOSE.invokeExact(fn, fid));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_close", t);
        }
    }

    /** {@code fi_bind(fid, bfid, flags)}: {@code fi_ep_bind}, {@code fi_mr_bind}. */
    public static void bind(MemorySegment fid, MemorySegment boundFid, long flags, String call) {
        final MemorySegment fn = function(fid, FID_OPS, OPS_BIND);
        try {
            FiErrno.check(call, (int) BIND.invokeExact(fn, fid, boundFid, flags));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw FiErrno.unexpected(call, t);
        }
    }

    /** {@code fi_control(fid, command, arg)}: {@code fi_enable}, {@code fi_mr_enable}. */
    public static void control(MemorySegment fid, int command, MemorySegment arg, String call) {
        final MemorySegment fn = function(fid, FID_OPS, OPS_CONTROL);
        try {
            FiErrno.check(call, (int) CONTROL.invokeExact(fn, fid, command, arg));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw FiErrno.unexpected(call, t);
        }
    }
}
