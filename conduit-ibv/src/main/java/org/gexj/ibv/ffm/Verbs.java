package org.gexj.ibv.ffm;

import org.gexj.spi.NativeLibrary;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code <infiniband/verbs.h>}: the library ({@code libibverbs.so.1}, Debian package {@code libibverbs1}), its
 * constants and its exported control-path functions: device list, open/close, queries, protection domains, memory
 * regions, completion queues and shared receive queues ({@link VerbsQp} has the queue pairs, {@link VerbsOps} the
 * inline data path, {@link VerbsLayouts} the structs).
 *
 * <p>Every call here is on the control path: it may allocate (a confined arena for out-parameters and the captured
 * errno) and it throws {@link org.gexj.ibv.IbvException} naming the call and the errno when the library fails.
 */
public final class Verbs {
    static final Linker LINKER = Linker.nativeLinker();
    private static final NativeLibrary LIBRARY = NativeLibrary.load("libibverbs.so.1",
        "install the Debian package libibverbs1", null, List.of("libibverbs.so.1"));

    /** Why libibverbs.so.1 could not be loaded, or null. Nothing else in this package may be used if not null. */
    public static Throwable loadFailure() {
        return LIBRARY.failure();
    }

    // ------------------------------------------------------------------------------------------------ constants
    // names as in verbs.h: IbvLayoutTest compares every public IBV_* constant with the header

    public static final int IBV_PORT_DOWN = 1;
    public static final int IBV_PORT_INIT = 2;
    public static final int IBV_PORT_ARMED = 3;
    public static final int IBV_PORT_ACTIVE = 4;
    public static final int IBV_LINK_LAYER_INFINIBAND = 1;
    public static final int IBV_LINK_LAYER_ETHERNET = 2;
    public static final int IBV_GID_TYPE_IB = 0;
    public static final int IBV_GID_TYPE_ROCE_V1 = 1;
    public static final int IBV_GID_TYPE_ROCE_V2 = 2;
    public static final int IBV_MTU_256 = 1;
    public static final int IBV_MTU_1024 = 3;
    public static final int IBV_MTU_4096 = 5;
    public static final int IBV_ACCESS_LOCAL_WRITE = 1;
    public static final int IBV_ACCESS_REMOTE_WRITE = 2;
    public static final int IBV_ACCESS_REMOTE_READ = 4;
    public static final int IBV_ACCESS_REMOTE_ATOMIC = 8;
    /** {@code enum ibv_atomic_cap}: no atomics. */
    public static final int IBV_ATOMIC_NONE = 0;
    public static final int IBV_QPT_RC = 2;
    public static final int IBV_QPT_UD = 4;
    public static final int IBV_QPS_RESET = 0;
    public static final int IBV_QPS_INIT = 1;
    public static final int IBV_QPS_RTR = 2;
    public static final int IBV_QPS_RTS = 3;
    public static final int IBV_QPS_ERR = 6;
    public static final int IBV_QP_STATE = 0x1;
    public static final int IBV_QP_ACCESS_FLAGS = 0x8;
    public static final int IBV_QP_PKEY_INDEX = 0x10;
    public static final int IBV_QP_PORT = 0x20;
    public static final int IBV_QP_QKEY = 0x40;
    public static final int IBV_QP_AV = 0x80;
    public static final int IBV_QP_PATH_MTU = 0x100;
    public static final int IBV_QP_TIMEOUT = 0x200;
    public static final int IBV_QP_RETRY_CNT = 0x400;
    public static final int IBV_QP_RNR_RETRY = 0x800;
    public static final int IBV_QP_RQ_PSN = 0x1000;
    public static final int IBV_QP_MAX_QP_RD_ATOMIC = 0x2000;
    public static final int IBV_QP_MIN_RNR_TIMER = 0x8000;
    public static final int IBV_QP_SQ_PSN = 0x10000;
    public static final int IBV_QP_MAX_DEST_RD_ATOMIC = 0x20000;
    public static final int IBV_QP_DEST_QPN = 0x100000;
    public static final int IBV_WR_RDMA_WRITE = 0;
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    public static final int IBV_WR_SEND = 2;
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    public static final int IBV_WR_RDMA_READ = 4;
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;
    public static final int IBV_SEND_FENCE = 1;
    public static final int IBV_SEND_SIGNALED = 2;
    public static final int IBV_SEND_SOLICITED = 4;
    public static final int IBV_SEND_INLINE = 8;
    public static final int IBV_WC_SUCCESS = 0;
    public static final int IBV_WC_LOC_PROT_ERR = 4;
    public static final int IBV_WC_WR_FLUSH_ERR = 5;
    public static final int IBV_WC_REM_ACCESS_ERR = 10;
    public static final int IBV_WC_SEND = 0;
    public static final int IBV_WC_RDMA_WRITE = 1;
    public static final int IBV_WC_RDMA_READ = 2;
    public static final int IBV_WC_RECV = 128;
    public static final int IBV_WC_RECV_RDMA_WITH_IMM = 129;
    public static final int IBV_WC_GRH = 1;
    public static final int IBV_WC_WITH_IMM = 2;

    /**
     * {@code sizeof(struct ibv_grh)}, 40: a UD receive's buffer begins with these bytes (the global route header, or
     * room for it), the datagram's payload after them, and its completion's {@code byte_len} counts them.
     */
    public static final int UD_GRH_BYTES = (int) VerbsLayouts.IBV_GRH.byteSize();

    static final long DEVICE_ATTR_PHYS_PORT_CNT = VerbsLayouts.offset(VerbsLayouts.IBV_DEVICE_ATTR, "phys_port_cnt");
    static final long MR_LKEY = VerbsLayouts.offset(VerbsLayouts.IBV_MR, "lkey");
    static final long MR_RKEY = VerbsLayouts.offset(VerbsLayouts.IBV_MR, "rkey");
    static final long SRQ_INIT_MAX_WR = VerbsLayouts.offset(VerbsLayouts.IBV_SRQ_INIT_ATTR, "attr", "max_wr");
    static final long SRQ_INIT_MAX_SGE = VerbsLayouts.offset(VerbsLayouts.IBV_SRQ_INIT_ATTR, "attr", "max_sge");
    /** {@code IBV_SYSFS_NAME_MAX}: the room of a device name, terminating NUL included. */
    static final long NAME_MAX = 64;
    static final long GID_ENTRY_TYPE = VerbsLayouts.offset(VerbsLayouts.IBV_GID_ENTRY, "gid_type");

    // ------------------------------------------------------------------------------------------------ bindings

    /** An exported function of libibverbs.so.1 whose handle takes an errno capture segment first. */
    static MethodHandle exported(String name, FunctionDescriptor descriptor) {
        return LIBRARY.downcall(name, descriptor, Errno.CAPTURE_ERRNO);
    }

    private static final class Exported {
        static final MethodHandle GET_DEVICE_LIST = exported("ibv_get_device_list",
            FunctionDescriptor.of(ADDRESS, ADDRESS));
        static final MethodHandle FREE_DEVICE_LIST = exported("ibv_free_device_list",
            FunctionDescriptor.ofVoid(ADDRESS));
        static final MethodHandle GET_DEVICE_NAME = exported("ibv_get_device_name",
            FunctionDescriptor.of(ADDRESS, ADDRESS));
        static final MethodHandle OPEN_DEVICE = exported("ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS));
        static final MethodHandle CLOSE_DEVICE = exported("ibv_close_device",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle QUERY_DEVICE = exported("ibv_query_device",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        static final MethodHandle QUERY_PORT = exported("ibv_query_port",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS));
        static final MethodHandle QUERY_GID = exported("ibv_query_gid",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS));
        static final MethodHandle QUERY_GID_EX = exported("_ibv_query_gid_ex",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
        static final MethodHandle ALLOC_PD = exported("ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS));
        static final MethodHandle DEALLOC_PD = exported("ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle REG_MR = exported("ibv_reg_mr",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        static final MethodHandle DEREG_MR = exported("ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle CREATE_CQ = exported("ibv_create_cq",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        static final MethodHandle DESTROY_CQ = exported("ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle CREATE_SRQ = exported("ibv_create_srq",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        static final MethodHandle DESTROY_SRQ = exported("ibv_destroy_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle WC_STATUS_STR = exported("ibv_wc_status_str",
            FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    private Verbs() {
    }

    // ------------------------------------------------------------------------------------------------ devices

    /**
     * {@code ibv_get_device_list}: the NULL-terminated array of {@code struct ibv_device*}, or NULL when there is no
     * device. Without kernel RDMA support the library returns NULL with {@code ENOSYS}: that is "no device" too, not
     * an error. Free a non-NULL list with {@link #freeDeviceList}.
     *
     * @param count receives the number of devices (an {@code int})
     */
    public static MemorySegment getDeviceList(MemorySegment count) {
        try (Arena arena = Arena.ofConfined()) {
            count.set(JAVA_INT, 0, 0);
            final MemorySegment list = (MemorySegment) Exported.GET_DEVICE_LIST.invokeExact(Errno.capture(arena),
                count);
            final int n = count.get(JAVA_INT, 0);
            return list.equals(MemorySegment.NULL) ? list : list.reinterpret(ADDRESS.byteSize() * (n + 1L));
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_get_device_list", t);
        }
    }

    /** {@code ibv_free_device_list}. The devices' contexts stay open. */
    public static void freeDeviceList(MemorySegment list) {
        try (Arena arena = Arena.ofConfined()) {
            Exported.FREE_DEVICE_LIST.invokeExact(Errno.capture(arena), list);
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_free_device_list", t);
        }
    }

    /** {@code ibv_get_device_name}, e.g. {@code mlx5_0}, {@code rxe0}. */
    public static String deviceName(MemorySegment device) {
        return pointerCall("ibv_get_device_name", Exported.GET_DEVICE_NAME, device).reinterpret(NAME_MAX)
            .getString(0);
    }

    /** {@code ibv_open_device}: the {@code struct ibv_context}. */
    public static MemorySegment openDevice(MemorySegment device) {
        return pointerCall("ibv_open_device", Exported.OPEN_DEVICE, device)
            .reinterpret(VerbsLayouts.IBV_CONTEXT.byteSize());
    }

    /** {@code ibv_close_device}. */
    public static void closeDevice(MemorySegment context) {
        intCall("ibv_close_device", Exported.CLOSE_DEVICE, context);
    }

    /** {@code ibv_query_device} into {@code attr} ({@link VerbsLayouts#IBV_DEVICE_ATTR}). */
    public static void queryDevice(MemorySegment context, MemorySegment attr) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment capture = Errno.capture(arena);
            Errno.check("ibv_query_device", (int) Exported.QUERY_DEVICE.invokeExact(capture, context, attr), capture);
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_query_device", t);
        }
    }

    /** The device's number of physical ports ({@code ibv_query_device}'s {@code phys_port_cnt}). */
    public static int portCount(MemorySegment context) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment attr = arena.allocate(VerbsLayouts.IBV_DEVICE_ATTR);
            queryDevice(context, attr);
            return Byte.toUnsignedInt(attr.get(JAVA_BYTE, DEVICE_ATTR_PHYS_PORT_CNT));
        }
    }

    /**
     * {@code ibv_query_port} into {@code attr} ({@link VerbsLayouts#IBV_PORT_ATTR}), which is zeroed first: the
     * exported symbol is the compat one and leaves {@code port_cap_flags2} alone.
     */
    public static void queryPort(MemorySegment context, int port, MemorySegment attr) {
        attr.asSlice(0, VerbsLayouts.IBV_PORT_ATTR.byteSize()).fill((byte) 0);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment capture = Errno.capture(arena);
            Errno.check("ibv_query_port(" + port + ")",
                (int) Exported.QUERY_PORT.invokeExact(capture, context, (byte) port, attr), capture);
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_query_port", t);
        }
    }

    /** {@code ibv_query_gid}: entry {@code index} of the port's GID table into {@code gid} (16 bytes). */
    public static void queryGid(MemorySegment context, int port, int index, MemorySegment gid) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment capture = Errno.capture(arena);
            Errno.check("ibv_query_gid(port " + port + ", index " + index + ")",
                (int) Exported.QUERY_GID.invokeExact(capture, context, (byte) port, index, gid), capture);
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_query_gid", t);
        }
    }

    /**
     * {@code ibv_query_gid_ex} (the exported {@code _ibv_query_gid_ex}) into {@code entry}
     * ({@link VerbsLayouts#IBV_GID_ENTRY}): the GID with its type ({@code IBV_GID_TYPE_ROCE_V2}...).
     *
     * @return 0, or the errno: {@code ENODATA} for an empty entry, {@code EOPNOTSUPP}/{@code ENOSYS} where the kernel
     *         cannot say (then {@code /sys/class/infiniband/<dev>/ports/<p>/gid_attrs/types/<i>} can)
     */
    public static int queryGidEx(MemorySegment context, int port, int index, MemorySegment entry) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment capture = Errno.capture(arena);
            final int rc = (int) Exported.QUERY_GID_EX.invokeExact(capture, context, port, index, entry, 0,
                VerbsLayouts.IBV_GID_ENTRY.byteSize());
            return rc > 0 ? rc : (rc < 0 ? Math.max(1, Errno.errno(capture)) : 0);
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_query_gid_ex", t);
        }
    }

    /** The {@code gid_type} of an entry filled by {@link #queryGidEx}. */
    public static int gidType(MemorySegment entry) {
        return entry.get(JAVA_INT, GID_ENTRY_TYPE);
    }

    // ------------------------------------------------------------------------------------------------ PD, MR, CQ, SRQ

    /** {@code ibv_alloc_pd}. */
    public static MemorySegment allocPd(MemorySegment context) {
        return pointerCall("ibv_alloc_pd", Exported.ALLOC_PD, context).reinterpret(VerbsLayouts.IBV_PD.byteSize());
    }

    /** {@code ibv_dealloc_pd}. */
    public static void deallocPd(MemorySegment pd) {
        intCall("ibv_dealloc_pd", Exported.DEALLOC_PD, pd);
    }

    /** {@code ibv_reg_mr(pd, memory, memory.byteSize(), access)}; {@link #lkey}/{@link #rkey} read the keys. */
    public static MemorySegment regMr(MemorySegment pd, MemorySegment memory, int access) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment capture = Errno.capture(arena);
            return Errno.checkPointer("ibv_reg_mr", (MemorySegment) Exported.REG_MR.invokeExact(capture, pd, memory,
                memory.byteSize(), access), capture).reinterpret(VerbsLayouts.IBV_MR.byteSize());
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_reg_mr", t);
        }
    }

    /** {@code ibv_dereg_mr}. */
    public static void deregMr(MemorySegment mr) {
        intCall("ibv_dereg_mr", Exported.DEREG_MR, mr);
    }

    /** The local key of a memory region, for {@code ibv_sge.lkey}. */
    public static int lkey(MemorySegment mr) {
        return mr.get(JAVA_INT, MR_LKEY);
    }

    /** The remote key of a memory region, for a peer's RDMA WRITE/READ. */
    public static int rkey(MemorySegment mr) {
        return mr.get(JAVA_INT, MR_RKEY);
    }

    /** {@code ibv_create_cq(context, entries, NULL, NULL, 0)}: no completion channel, polled only. */
    public static MemorySegment createCq(MemorySegment context, int entries) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment capture = Errno.capture(arena);
            return Errno.checkPointer("ibv_create_cq", (MemorySegment) Exported.CREATE_CQ.invokeExact(capture, context,
                entries, MemorySegment.NULL, MemorySegment.NULL, 0), capture)
                .reinterpret(VerbsLayouts.IBV_CQ.byteSize());
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_create_cq", t);
        }
    }

    /** {@code ibv_destroy_cq}. */
    public static void destroyCq(MemorySegment cq) {
        intCall("ibv_destroy_cq", Exported.DESTROY_CQ, cq);
    }

    /** {@code ibv_create_srq} of {@code maxWr} receives of up to {@code maxSge} entries each. */
    public static MemorySegment createSrq(MemorySegment pd, int maxWr, int maxSge) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment attr = arena.allocate(VerbsLayouts.IBV_SRQ_INIT_ATTR);
            attr.set(JAVA_INT, SRQ_INIT_MAX_WR, maxWr);
            attr.set(JAVA_INT, SRQ_INIT_MAX_SGE, maxSge);
            final MemorySegment capture = Errno.capture(arena);
            return Errno.checkPointer("ibv_create_srq", (MemorySegment) Exported.CREATE_SRQ.invokeExact(capture, pd,
                attr), capture).reinterpret(VerbsLayouts.IBV_SRQ.byteSize());
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_create_srq", t);
        }
    }

    /** {@code ibv_destroy_srq}. */
    public static void destroySrq(MemorySegment srq) {
        intCall("ibv_destroy_srq", Exported.DESTROY_SRQ, srq);
    }

    /**
     * The bytes of an {@code enum ibv_mtu} ({@code IBV_MTU_256} 256 ... {@code IBV_MTU_4096} 4096): the largest UD
     * payload on a port whose {@code active_mtu} it is (the receive buffer needs {@link #UD_GRH_BYTES} more).
     *
     * @throws IllegalArgumentException if {@code mtu} is not 1..5
     */
    public static int mtuBytes(int mtu) {
        if (mtu < IBV_MTU_256 || mtu > IBV_MTU_4096) {
            throw new IllegalArgumentException("enum ibv_mtu " + mtu + ": expected " + IBV_MTU_256 + ".."
                + IBV_MTU_4096);
        }
        return 128 << mtu;
    }

    /** {@code ibv_wc_status_str}, e.g. "remote access error" for {@code IBV_WC_REM_ACCESS_ERR}. */
    public static String wcStatusText(int status) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment text = (MemorySegment) Exported.WC_STATUS_STR.invokeExact(Errno.capture(arena),
                status);
            return text.equals(MemorySegment.NULL) ? "status " + status : text.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_wc_status_str", t);
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    static MemorySegment pointerCall(String call, MethodHandle handle, MemorySegment argument) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment capture = Errno.capture(arena);
            return Errno.checkPointer(call, (MemorySegment) handle.invokeExact(capture, argument), capture);
        } catch (Throwable t) {
            throw Errno.unexpected(call, t);
        }
    }

    static void intCall(String call, MethodHandle handle, MemorySegment argument) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment capture = Errno.capture(arena);
            Errno.check(call, (int) handle.invokeExact(capture, argument), capture);
        } catch (Throwable t) {
            throw Errno.unexpected(call, t);
        }
    }
}
