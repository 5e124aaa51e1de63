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
 * {@code <rdma/fi_endpoint.h>}: {@code fid_ep}, {@code fi_ep_bind}, {@code fi_enable}, {@code fi_setopt} and the
 * message calls {@code fi_recvmsg}, {@code fi_send}, {@code fi_inject}.
 *
 * <p>Providers may swap an endpoint's ops tables when it is bound or enabled, so the data-path function pointers
 * ({@link #sendFunction} etc.) are read after {@link #enable} and kept by the caller. The data-path calls are
 * {@linkplain Linker.Option#critical(boolean) critical} and return {@code -FI_EAGAIN} as a code.
 */
public final class FiEndpoint {
    public static final StructLayout FID_EP = MemoryLayout.structLayout(
        Fabric.FID.withName("fid"), ADDRESS.withName("ops"), ADDRESS.withName("cm"), ADDRESS.withName("msg"),
        ADDRESS.withName("rma"), ADDRESS.withName("tagged"), ADDRESS.withName("atomic"),
        ADDRESS.withName("collective")).withName("fid_ep");

    public static final StructLayout FI_OPS_EP = MemoryLayout.structLayout(
        JAVA_LONG.withName("size"), ADDRESS.withName("cancel"), ADDRESS.withName("getopt"),
        ADDRESS.withName("setopt"), ADDRESS.withName("tx_ctx"), ADDRESS.withName("rx_ctx"),
        ADDRESS.withName("rx_size_left"), ADDRESS.withName("tx_size_left")).withName("fi_ops_ep");

    public static final StructLayout FI_OPS_MSG = MemoryLayout.structLayout(
        JAVA_LONG.withName("size"), ADDRESS.withName("recv"), ADDRESS.withName("recvv"), ADDRESS.withName("recvmsg"),
        ADDRESS.withName("send"), ADDRESS.withName("sendv"), ADDRESS.withName("sendmsg"), ADDRESS.withName("inject"),
        ADDRESS.withName("senddata"), ADDRESS.withName("injectdata")).withName("fi_ops_msg");

    /** {@code struct iovec}. */
    public static final StructLayout IOVEC = MemoryLayout.structLayout(
        ADDRESS.withName("iov_base"), JAVA_LONG.withName("iov_len")).withName("iovec");

    /** {@code struct fi_msg}. */
    public static final StructLayout FI_MSG_STRUCT = MemoryLayout.structLayout(
        ADDRESS.withName("msg_iov"), ADDRESS.withName("desc"), JAVA_LONG.withName("iov_count"),
        JAVA_LONG.withName("addr"), ADDRESS.withName("context"), JAVA_LONG.withName("data")).withName("fi_msg");

    public static final int FI_OPT_ENDPOINT = 0;
    public static final int FI_OPT_MIN_MULTI_RECV = 0;
    /** {@code FI_ADDR_UNSPEC}: receive from any source. */
    public static final long FI_ADDR_UNSPEC = -1L;

    public static final long MSG_IOV = Fabric.offset(FI_MSG_STRUCT, "msg_iov");
    public static final long MSG_DESC = Fabric.offset(FI_MSG_STRUCT, "desc");
    public static final long MSG_IOV_COUNT = Fabric.offset(FI_MSG_STRUCT, "iov_count");
    public static final long MSG_ADDR = Fabric.offset(FI_MSG_STRUCT, "addr");
    public static final long MSG_CONTEXT = Fabric.offset(FI_MSG_STRUCT, "context");
    public static final long IOV_BASE = Fabric.offset(IOVEC, "iov_base");
    public static final long IOV_LEN = Fabric.offset(IOVEC, "iov_len");

    static final long EP_OPS = Fabric.offset(FID_EP, "ops");
    static final long EP_MSG = Fabric.offset(FID_EP, "msg");

    private static final MethodHandle SETOPT = Fabric.pointer(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
        JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle RECVMSG = Fabric.pointer(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
        ADDRESS, JAVA_LONG), Linker.Option.critical(false));
    // desc (void *) is passed as a raw address: a segment per call would allocate
    private static final MethodHandle SEND = Fabric.pointer(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
        JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));
    private static final MethodHandle INJECT = Fabric.pointer(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
        JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));

    private FiEndpoint() {
    }

    /** {@code fi_ep_bind(ep, fid, flags)}: a CQ with {@code FI_TRANSMIT | FI_RECV}, or the AV. */
    public static void bind(MemorySegment ep, MemorySegment fid, long flags) {
        Fabric.bind(ep, fid, flags, "fi_ep_bind");
    }

    /** {@code fi_enable(ep)}. */
    public static void enable(MemorySegment ep) {
        Fabric.control(ep, Fabric.FI_ENABLE, MemorySegment.NULL, "fi_enable");
    }

    /** {@code fi_setopt(&ep->fid, level, name, &value, sizeof(size_t))} for a {@code size_t} option. */
    public static void setSizeOption(MemorySegment ep, int level, int name, long value, String what) {
        final MemorySegment fn = Fabric.function(ep, EP_OPS, Fabric.offset(FI_OPS_EP, "setopt"));
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment v = arena.allocateFrom(JAVA_LONG, value);
            FiErrno.check("fi_setopt(" + what + ")", (int) SETOPT.invokeExact(fn, ep, level, name, v, 8L));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_setopt", t);
        }
    }

    public static MemorySegment recvMsgFunction(MemorySegment ep) {
        return Fabric.function(ep, EP_MSG, Fabric.offset(FI_OPS_MSG, "recvmsg"));
    }

    public static MemorySegment sendFunction(MemorySegment ep) {
        return Fabric.function(ep, EP_MSG, Fabric.offset(FI_OPS_MSG, "send"));
    }

    public static MemorySegment injectFunction(MemorySegment ep) {
        return Fabric.function(ep, EP_MSG, Fabric.offset(FI_OPS_MSG, "inject"));
    }

    /** {@code fi_recvmsg(ep, msg, flags)}: 0, {@code -FI_EAGAIN}, or another negative code. */
    public static long recvMsg(MemorySegment fn, MemorySegment ep, MemorySegment msg, long flags) {
        try {
            return (long) RECVMSG.invokeExact(fn, ep, msg, flags);
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_recvmsg", t);
        }
    }

    /**
     * {@code fi_send(ep, buf, len, desc, dest, context)} with raw addresses (no segment per call).
     *
     * @return 0, {@code -FI_EAGAIN}, or another negative code
     */
    public static long send(MemorySegment fn, MemorySegment ep, long buf, long len, long desc, long dest,
                            long context) {
        try {
            return (long) SEND.invokeExact(fn, ep, buf, len, desc, dest, context);
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_send", t);
        }
    }

    /** {@code fi_inject(ep, buf, len, dest)}: the buffer is reusable on return; no completion. */
    public static long inject(MemorySegment fn, MemorySegment ep, long buf, long len, long dest) {
        try {
            return (long) INJECT.invokeExact(fn, ep, buf, len, dest);
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_inject", t);
        }
    }
}
