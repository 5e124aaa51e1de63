package org.gexj.ibv.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.gexj.ibv.ffm.VerbsLayouts.IBV_AH;
import static org.gexj.ibv.ffm.VerbsLayouts.IBV_AH_ATTR;
import static org.gexj.ibv.ffm.VerbsLayouts.offset;

/**
 * Address handles of {@code <infiniband/verbs.h>}: {@code ibv_create_ah} and {@code ibv_destroy_ah} (both exported by
 * libibverbs.so.1, not inline). An address handle is the route to one remote port, made once on the control path;
 * every UD send to that port names it ({@link SendWr#sendUd}) with the remote QP number and Q_Key.
 */
public final class VerbsAh {
    static final long DGID = offset(IBV_AH_ATTR, "grh", "dgid");
    static final long SGID_INDEX = offset(IBV_AH_ATTR, "grh", "sgid_index");
    static final long HOP_LIMIT = offset(IBV_AH_ATTR, "grh", "hop_limit");
    static final long DLID = offset(IBV_AH_ATTR, "dlid");
    static final long IS_GLOBAL = offset(IBV_AH_ATTR, "is_global");
    static final long PORT_NUM = offset(IBV_AH_ATTR, "port_num");

    private static final class Exported {
        static final MethodHandle CREATE_AH = Verbs.exported("ibv_create_ah",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        static final MethodHandle DESTROY_AH = Verbs.exported("ibv_destroy_ah",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    private VerbsAh() {
    }

    /**
     * {@code ibv_create_ah} on {@code pd} for the remote port at {@code remoteGid}, reached through the global route
     * ({@code is_global} 1, hop limit 64) from our GID {@code sgidIndex} on {@code port}, as
     * {@link VerbsQp#toRtr} addresses an RC peer. Destroy it with {@link #destroy} before the PD.
     *
     * @param remoteGid the remote port's GID: its first 16 bytes, network order
     * @param sgidIndex our GID table entry the datagrams leave from, 0..255 (on RoCE it picks v1/v2 and IPv4/IPv6)
     * @param remoteLid the remote port's LID, 0..65535; it matters on InfiniBand only (0 on RoCE)
     * @throws IllegalArgumentException naming the bad value and its range, before any call
     * @throws org.gexj.ibv.IbvException {@code ibv_create_ah: <text> (errno N)} when the library refuses
     */
    public static MemorySegment create(MemorySegment pd, int port, MemorySegment remoteGid, int sgidIndex,
                                       int remoteLid) {
        if (port < 1 || port > 255) {
            throw new IllegalArgumentException("port " + port + ": expected 1..255");
        }
        if (remoteGid.byteSize() < 16) {
            throw new IllegalArgumentException("remote GID of " + remoteGid.byteSize() + " bytes: expected 16");
        }
        if (sgidIndex < 0 || sgidIndex > 255) {
            throw new IllegalArgumentException("sgid index " + sgidIndex + ": expected 0..255");
        }
        if (remoteLid < 0 || remoteLid > 0xFFFF) {
            throw new IllegalArgumentException("remote LID " + remoteLid + ": expected 0..65535");
        }
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment attr = arena.allocate(IBV_AH_ATTR);
            MemorySegment.copy(remoteGid, 0, attr, DGID, 16);
            attr.set(JAVA_BYTE, SGID_INDEX, (byte) sgidIndex);
            attr.set(JAVA_BYTE, HOP_LIMIT, (byte) 64);
            attr.set(JAVA_SHORT, DLID, (short) remoteLid);
            attr.set(JAVA_BYTE, IS_GLOBAL, (byte) 1);
            attr.set(JAVA_BYTE, PORT_NUM, (byte) port);
            final MemorySegment capture = Errno.capture(arena);
            return Errno.checkPointer("ibv_create_ah", (MemorySegment) Exported.CREATE_AH.invokeExact(capture, pd,
                attr), capture).reinterpret(IBV_AH.byteSize());
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_create_ah", t);
        }
    }

    /** {@code ibv_destroy_ah}. No send naming it may be outstanding. */
    public static void destroy(MemorySegment ah) {
        Verbs.intCall("ibv_destroy_ah", Exported.DESTROY_AH, ah);
    }
}
