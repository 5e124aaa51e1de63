package org.gexj.ibv.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.gexj.ibv.ffm.VerbsLayouts.IBV_QP;
import static org.gexj.ibv.ffm.VerbsLayouts.IBV_QP_ATTR;
import static org.gexj.ibv.ffm.VerbsLayouts.IBV_QP_INIT_ATTR;
import static org.gexj.ibv.ffm.VerbsLayouts.offset;

/**
 * The queue-pair functions of {@code <infiniband/verbs.h>}: {@code ibv_create_qp}, {@code ibv_modify_qp},
 * {@code ibv_destroy_qp}, and the three transitions that connect a reliable-connected (RC) QP to its peer:
 * RESET → INIT → RTR (ready to receive: the peer's QP number, GID and first PSN) → RTS (ready to send). An
 * unreliable-datagram (UD) QP has no peer: it goes through the same states with only its port and Q_Key, and each send
 * names its destination ({@link VerbsAh}, {@link SendWr#sendUd}).
 */
public final class VerbsQp {
    static final long QP_NUM = offset(IBV_QP, "qp_num");
    static final long QP_STATE = offset(IBV_QP, "state");
    private static final long INIT_SEND_CQ = offset(IBV_QP_INIT_ATTR, "send_cq");
    private static final long INIT_RECV_CQ = offset(IBV_QP_INIT_ATTR, "recv_cq");
    private static final long INIT_SRQ = offset(IBV_QP_INIT_ATTR, "srq");
    private static final long INIT_MAX_SEND_WR = offset(IBV_QP_INIT_ATTR, "cap", "max_send_wr");
    private static final long INIT_MAX_RECV_WR = offset(IBV_QP_INIT_ATTR, "cap", "max_recv_wr");
    private static final long INIT_MAX_SEND_SGE = offset(IBV_QP_INIT_ATTR, "cap", "max_send_sge");
    private static final long INIT_MAX_RECV_SGE = offset(IBV_QP_INIT_ATTR, "cap", "max_recv_sge");
    private static final long INIT_MAX_INLINE = offset(IBV_QP_INIT_ATTR, "cap", "max_inline_data");
    private static final long INIT_QP_TYPE = offset(IBV_QP_INIT_ATTR, "qp_type");
    private static final long ATTR_STATE = offset(IBV_QP_ATTR, "qp_state");
    static final long ATTR_QKEY = offset(IBV_QP_ATTR, "qkey");
    private static final long ATTR_PATH_MTU = offset(IBV_QP_ATTR, "path_mtu");
    private static final long ATTR_RQ_PSN = offset(IBV_QP_ATTR, "rq_psn");
    private static final long ATTR_SQ_PSN = offset(IBV_QP_ATTR, "sq_psn");
    private static final long ATTR_DEST_QPN = offset(IBV_QP_ATTR, "dest_qp_num");
    private static final long ATTR_ACCESS = offset(IBV_QP_ATTR, "qp_access_flags");
    private static final long ATTR_DGID = offset(IBV_QP_ATTR, "ah_attr", "grh", "dgid");
    private static final long ATTR_SGID_INDEX = offset(IBV_QP_ATTR, "ah_attr", "grh", "sgid_index");
    private static final long ATTR_HOP_LIMIT = offset(IBV_QP_ATTR, "ah_attr", "grh", "hop_limit");
    private static final long ATTR_DLID = offset(IBV_QP_ATTR, "ah_attr", "dlid");
    private static final long ATTR_IS_GLOBAL = offset(IBV_QP_ATTR, "ah_attr", "is_global");
    private static final long ATTR_AH_PORT = offset(IBV_QP_ATTR, "ah_attr", "port_num");
    private static final long ATTR_PKEY_INDEX = offset(IBV_QP_ATTR, "pkey_index");
    private static final long ATTR_MAX_RD_ATOMIC = offset(IBV_QP_ATTR, "max_rd_atomic");
    private static final long ATTR_MAX_DEST_RD_ATOMIC = offset(IBV_QP_ATTR, "max_dest_rd_atomic");
    private static final long ATTR_MIN_RNR_TIMER = offset(IBV_QP_ATTR, "min_rnr_timer");
    private static final long ATTR_PORT = offset(IBV_QP_ATTR, "port_num");
    private static final long ATTR_TIMEOUT = offset(IBV_QP_ATTR, "timeout");
    private static final long ATTR_RETRY_CNT = offset(IBV_QP_ATTR, "retry_cnt");
    private static final long ATTR_RNR_RETRY = offset(IBV_QP_ATTR, "rnr_retry");

    /** The masks of the three transitions (verbs.h {@code IBV_QP_*} bits). */
    public static final int INIT_MASK = Verbs.IBV_QP_STATE | Verbs.IBV_QP_PKEY_INDEX | Verbs.IBV_QP_PORT
        | Verbs.IBV_QP_ACCESS_FLAGS;
    public static final int RTR_MASK = Verbs.IBV_QP_STATE | Verbs.IBV_QP_AV | Verbs.IBV_QP_PATH_MTU
        | Verbs.IBV_QP_DEST_QPN | Verbs.IBV_QP_RQ_PSN | Verbs.IBV_QP_MAX_DEST_RD_ATOMIC | Verbs.IBV_QP_MIN_RNR_TIMER;
    public static final int RTS_MASK = Verbs.IBV_QP_STATE | Verbs.IBV_QP_TIMEOUT | Verbs.IBV_QP_RETRY_CNT
        | Verbs.IBV_QP_RNR_RETRY | Verbs.IBV_QP_SQ_PSN | Verbs.IBV_QP_MAX_QP_RD_ATOMIC;
    /** The masks of a UD QP's transitions: INIT sets the Q_Key, RTR nothing but the state, RTS the first PSN. */
    public static final int UD_INIT_MASK = Verbs.IBV_QP_STATE | Verbs.IBV_QP_PKEY_INDEX | Verbs.IBV_QP_PORT
        | Verbs.IBV_QP_QKEY;
    public static final int UD_RTR_MASK = Verbs.IBV_QP_STATE;
    public static final int UD_RTS_MASK = Verbs.IBV_QP_STATE | Verbs.IBV_QP_SQ_PSN;

    private static final class Exported {
        static final MethodHandle CREATE_QP = Verbs.exported("ibv_create_qp",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        static final MethodHandle MODIFY_QP = Verbs.exported("ibv_modify_qp",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        static final MethodHandle DESTROY_QP = Verbs.exported("ibv_destroy_qp",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    private VerbsQp() {
    }

    /** What a QP is created with ({@code struct ibv_qp_cap}). */
    public record Capacity(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
    }

    /**
     * {@code ibv_create_qp} of an RC QP on {@code pd}, completing sends on {@code sendCq} and receives on
     * {@code recvCq}, receiving from {@code srq} ({@link MemorySegment#NULL} for a receive queue of its own).
     * Only signaled work requests complete ({@code sq_sig_all} 0).
     */
    public static MemorySegment createRc(MemorySegment pd, MemorySegment sendCq, MemorySegment recvCq,
                                         MemorySegment srq, Capacity cap) {
        return create(pd, sendCq, recvCq, srq, cap, Verbs.IBV_QPT_RC);
    }

    /**
     * {@code ibv_create_qp} of a UD QP on {@code pd} with a receive queue of its own ({@code srq} NULL: post with
     * {@link VerbsOps#postRecv(MemorySegment, RecvWr)}), completing sends on {@code sendCq} and receives on
     * {@code recvCq} (may be the same CQ). Only signaled work requests complete ({@code sq_sig_all} 0). A datagram
     * carries at most the port's active MTU ({@link Verbs#mtuBytes}); each receive buffer needs
     * {@link Verbs#UD_GRH_BYTES} more. Then {@link #toInitUd}, {@link #toRtrUd}, {@link #toRtsUd}.
     */
    public static MemorySegment createUd(MemorySegment pd, MemorySegment sendCq, MemorySegment recvCq,
                                         Capacity cap) {
        return create(pd, sendCq, recvCq, MemorySegment.NULL, cap, Verbs.IBV_QPT_UD);
    }

    private static MemorySegment create(MemorySegment pd, MemorySegment sendCq, MemorySegment recvCq,
                                        MemorySegment srq, Capacity cap, int qpType) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment attr = arena.allocate(IBV_QP_INIT_ATTR);
            attr.set(ADDRESS, INIT_SEND_CQ, sendCq);
            attr.set(ADDRESS, INIT_RECV_CQ, recvCq);
            attr.set(ADDRESS, INIT_SRQ, srq);
            attr.set(JAVA_INT, INIT_MAX_SEND_WR, cap.maxSendWr());
            attr.set(JAVA_INT, INIT_MAX_RECV_WR, cap.maxRecvWr());
            attr.set(JAVA_INT, INIT_MAX_SEND_SGE, cap.maxSendSge());
            attr.set(JAVA_INT, INIT_MAX_RECV_SGE, cap.maxRecvSge());
            attr.set(JAVA_INT, INIT_MAX_INLINE, cap.maxInlineData());
            attr.set(JAVA_INT, INIT_QP_TYPE, qpType);
            final MemorySegment capture = Errno.capture(arena);
            return Errno.checkPointer("ibv_create_qp", (MemorySegment) Exported.CREATE_QP.invokeExact(capture, pd,
                attr), capture).reinterpret(IBV_QP.byteSize());
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_create_qp", t);
        }
    }

    /** The QP number a peer addresses this QP by. */
    public static int qpNum(MemorySegment qp) {
        return qp.get(JAVA_INT, QP_NUM);
    }

    /** {@code ibv_modify_qp(qp, attr, mask)}; {@code what} names the transition in the exception. */
    public static void modify(MemorySegment qp, MemorySegment attr, int mask, String what) {
        final String call = "ibv_modify_qp(" + what + ")";
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment capture = Errno.capture(arena);
            Errno.check(call, (int) Exported.MODIFY_QP.invokeExact(capture, qp, attr, mask), capture);
        } catch (Throwable t) {
            throw Errno.unexpected(call, t);
        }
    }

    /** RESET → INIT on {@code port}, pkey index 0, the remote side allowed {@code access} (IBV_ACCESS_* bits). */
    public static void toInit(MemorySegment qp, int port, int access) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment attr = arena.allocate(IBV_QP_ATTR);
            attr.set(JAVA_INT, ATTR_STATE, Verbs.IBV_QPS_INIT);
            attr.set(JAVA_SHORT, ATTR_PKEY_INDEX, (short) 0);
            attr.set(JAVA_BYTE, ATTR_PORT, (byte) port);
            attr.set(JAVA_INT, ATTR_ACCESS, access);
            modify(qp, attr, INIT_MASK, "INIT");
        }
    }

    /**
     * INIT → RTR towards the peer QP {@code remoteQpn}, reached through the global route: {@code remoteGid} (16
     * bytes), our GID {@code sgidIndex} on {@code port}; {@code remoteLid} matters on InfiniBand only (0 on RoCE).
     *
     * @param pathMtu  an {@code enum ibv_mtu} ({@code IBV_MTU_1024}...), at most both ports' active MTU
     * @param remotePsn the peer's first send PSN (24 bits)
     * @param readsInFlight RDMA READs the peer may have outstanding towards us, at most the device's
     *                  {@code max_qp_rd_atom}
     */
    public static void toRtr(MemorySegment qp, int port, int remoteQpn, int remotePsn, MemorySegment remoteGid,
                             int sgidIndex, int remoteLid, int pathMtu, int readsInFlight) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment attr = arena.allocate(IBV_QP_ATTR);
            attr.set(JAVA_INT, ATTR_STATE, Verbs.IBV_QPS_RTR);
            attr.set(JAVA_INT, ATTR_PATH_MTU, pathMtu);
            attr.set(JAVA_INT, ATTR_DEST_QPN, remoteQpn);
            attr.set(JAVA_INT, ATTR_RQ_PSN, remotePsn & 0xFFFFFF);
            attr.set(JAVA_BYTE, ATTR_MAX_DEST_RD_ATOMIC, (byte) readsInFlight);
            // 12 = 0.64 ms before a receiver-not-ready sender retries
            attr.set(JAVA_BYTE, ATTR_MIN_RNR_TIMER, (byte) 12);
            MemorySegment.copy(remoteGid, 0, attr, ATTR_DGID, 16);
            attr.set(JAVA_BYTE, ATTR_SGID_INDEX, (byte) sgidIndex);
            attr.set(JAVA_BYTE, ATTR_HOP_LIMIT, (byte) 64);
            attr.set(JAVA_BYTE, ATTR_IS_GLOBAL, (byte) 1);
            attr.set(JAVA_SHORT, ATTR_DLID, (short) remoteLid);
            attr.set(JAVA_BYTE, ATTR_AH_PORT, (byte) port);
            modify(qp, attr, RTR_MASK, "RTR");
        }
    }

    /**
     * RTR → RTS, first send PSN {@code psn}. {@code rnrRetry} 7 retries a receiver-not-ready peer for ever (the
     * receiver posts more buffers eventually); {@code retryCount} bounds retransmissions of lost packets, each after
     * 4.096 µs * 2^{@code timeout}; {@code readsInFlight} (at most the device's {@code max_qp_init_rd_atom}) bounds
     * our outstanding RDMA READs.
     */
    public static void toRts(MemorySegment qp, int psn, int timeout, int retryCount, int rnrRetry,
                             int readsInFlight) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment attr = arena.allocate(IBV_QP_ATTR);
            attr.set(JAVA_INT, ATTR_STATE, Verbs.IBV_QPS_RTS);
            attr.set(JAVA_INT, ATTR_SQ_PSN, psn & 0xFFFFFF);
            attr.set(JAVA_BYTE, ATTR_TIMEOUT, (byte) timeout);
            attr.set(JAVA_BYTE, ATTR_RETRY_CNT, (byte) retryCount);
            attr.set(JAVA_BYTE, ATTR_RNR_RETRY, (byte) rnrRetry);
            attr.set(JAVA_BYTE, ATTR_MAX_RD_ATOMIC, (byte) readsInFlight);
            modify(qp, attr, RTS_MASK, "RTS");
        }
    }

    /**
     * A UD QP's RESET → INIT on {@code port}, pkey index 0, accepting datagrams sent with {@code qkey}: a datagram
     * whose {@code remote_qkey} differs is dropped by the receiving device (no completion). A Q_Key with the high bit
     * set is a controlled one, which only privileged processes may set: use one below {@code 0x80000000}.
     */
    public static void toInitUd(MemorySegment qp, int port, int qkey) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment attr = arena.allocate(IBV_QP_ATTR);
            attr.set(JAVA_INT, ATTR_STATE, Verbs.IBV_QPS_INIT);
            attr.set(JAVA_SHORT, ATTR_PKEY_INDEX, (short) 0);
            attr.set(JAVA_BYTE, ATTR_PORT, (byte) port);
            attr.set(JAVA_INT, ATTR_QKEY, qkey);
            modify(qp, attr, UD_INIT_MASK, "UD INIT");
        }
    }

    /** A UD QP's INIT → RTR: it receives from then on (post receives before, or datagrams are dropped). */
    public static void toRtrUd(MemorySegment qp) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment attr = arena.allocate(IBV_QP_ATTR);
            attr.set(JAVA_INT, ATTR_STATE, Verbs.IBV_QPS_RTR);
            modify(qp, attr, UD_RTR_MASK, "UD RTR");
        }
    }

    /** A UD QP's RTR → RTS, first send PSN {@code psn} (24 bits): it sends from then on. */
    public static void toRtsUd(MemorySegment qp, int psn) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment attr = arena.allocate(IBV_QP_ATTR);
            attr.set(JAVA_INT, ATTR_STATE, Verbs.IBV_QPS_RTS);
            attr.set(JAVA_INT, ATTR_SQ_PSN, psn & 0xFFFFFF);
            modify(qp, attr, UD_RTS_MASK, "UD RTS");
        }
    }

    /** {@code ibv_destroy_qp}. */
    public static void destroy(MemorySegment qp) {
        Verbs.intCall("ibv_destroy_qp", Exported.DESTROY_QP, qp);
    }
}
