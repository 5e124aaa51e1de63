package org.gexj.ibv;

import org.gexj.ibv.ffm.Verbs;
import org.gexj.ibv.ffm.VerbsAh;
import org.gexj.ibv.ffm.VerbsLayouts;
import org.gexj.ibv.ffm.VerbsQp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Deque;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The verbs objects of one rank (control path): the opened device, its protection domain, one completion queue for
 * sends and receives, one shared receive queue, the RC queue pairs and the memory registrations, with the limits of
 * the device and port that size them. {@link #close} destroys them newest first, each once, also after a failed open.
 *
 * <p>Threads: built by the conduit's open; afterwards called under the RDMA engine's lock.
 */
final class IbvDevice implements AutoCloseable {
    private static final long DEV_MAX_QP_WR = offset(VerbsLayouts.IBV_DEVICE_ATTR, "max_qp_wr");
    private static final long DEV_MAX_CQE = offset(VerbsLayouts.IBV_DEVICE_ATTR, "max_cqe");
    private static final long DEV_MAX_SRQ_WR = offset(VerbsLayouts.IBV_DEVICE_ATTR, "max_srq_wr");
    private static final long DEV_MAX_QP_RD_ATOM = offset(VerbsLayouts.IBV_DEVICE_ATTR, "max_qp_rd_atom");
    private static final long DEV_MAX_QP_INIT_RD_ATOM = offset(VerbsLayouts.IBV_DEVICE_ATTR, "max_qp_init_rd_atom");
    private static final long DEV_ATOMIC_CAP = offset(VerbsLayouts.IBV_DEVICE_ATTR, "atomic_cap");
    private static final long PORT_ACTIVE_MTU = offset(VerbsLayouts.IBV_PORT_ATTR, "active_mtu");
    private static final long PORT_MAX_MSG_SZ = offset(VerbsLayouts.IBV_PORT_ATTR, "max_msg_sz");
    private static final long PORT_LID = offset(VerbsLayouts.IBV_PORT_ATTR, "lid");
    /** A sane bound of one message or RMA chunk, whatever the port allows (rxe: 2 GiB). */
    static final long MAX_MESSAGE_CAP = 1L << 30;

    final String name;
    final int port;
    final boolean roce;
    final int gidIndex;
    final byte[] gid;
    final int lid;
    final int activeMtu;
    final long maxMessage;
    final int maxQpWr;
    final int maxCqe;
    final int maxSrqWr;
    /** RDMA READs in flight per QP, each way: within both of the device's bounds, and at most 16. */
    final int readsInFlight;
    /** The device performs 64-bit atomics ({@code atomic_cap} not {@code IBV_ATOMIC_NONE}). */
    final boolean atomics;
    final MemorySegment context;
    final MemorySegment pd;
    private MemorySegment cq;
    private MemorySegment srq;
    /** Closes each object made so far, newest first. */
    private final Deque<Runnable> closers = new ArrayDeque<>();
    private boolean closed;

    private IbvDevice(IbvSettings.Choice choice) {
        this.name = choice.device();
        this.port = choice.port();
        this.roce = choice.linkLayer() == Verbs.IBV_LINK_LAYER_ETHERNET;
        this.context = openByName(choice.device());
        closers.push(() -> Verbs.closeDevice(context));
        boolean opened = false;
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment dev = arena.allocate(VerbsLayouts.IBV_DEVICE_ATTR);
            Verbs.queryDevice(context, dev);
            this.maxQpWr = dev.get(JAVA_INT, DEV_MAX_QP_WR);
            this.maxCqe = dev.get(JAVA_INT, DEV_MAX_CQE);
            this.maxSrqWr = dev.get(JAVA_INT, DEV_MAX_SRQ_WR);
            this.readsInFlight = Math.max(1, Math.min(16, Math.min(dev.get(JAVA_INT, DEV_MAX_QP_RD_ATOM),
                dev.get(JAVA_INT, DEV_MAX_QP_INIT_RD_ATOM))));
            this.atomics = dev.get(JAVA_INT, DEV_ATOMIC_CAP) != Verbs.IBV_ATOMIC_NONE;
            final MemorySegment attr = arena.allocate(VerbsLayouts.IBV_PORT_ATTR);
            Verbs.queryPort(context, port, attr);
            this.activeMtu = attr.get(JAVA_INT, PORT_ACTIVE_MTU);
            this.lid = Short.toUnsignedInt(attr.get(JAVA_SHORT, PORT_LID));
            this.maxMessage = Math.min(MAX_MESSAGE_CAP, Integer.toUnsignedLong(attr.get(JAVA_INT, PORT_MAX_MSG_SZ)));
            this.gidIndex = IbvGids.choose(context, name, port);
            final MemorySegment g = arena.allocate(16, 8);
            Verbs.queryGid(context, port, gidIndex, g);
            this.gid = g.toArray(JAVA_BYTE);
            this.pd = Verbs.allocPd(context);
            closers.push(() -> Verbs.deallocPd(pd));
            opened = true;
        } finally {
            if (!opened) {
                close();
            }
        }
    }

    private static long offset(java.lang.foreign.GroupLayout layout, String member) {
        return VerbsLayouts.offset(layout, member);
    }

    /**
     * Opens the device and port {@code choice} names, with its protection domain.
     *
     * @throws IbvException naming the call that failed
     */
    static IbvDevice open(IbvSettings.Choice choice) {
        return new IbvDevice(choice);
    }

    private static MemorySegment openByName(String device) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment count = arena.allocate(JAVA_INT);
            final MemorySegment list = Verbs.getDeviceList(count);
            if (list.equals(MemorySegment.NULL)) {
                throw new IllegalStateException(Ibv.NO_DEVICE);
            }
            try {
                // the context outlives the list: ibv_open_device before ibv_free_device_list, as the man page asks
                for (int i = 0; i < count.get(JAVA_INT, 0); i++) {
                    final MemorySegment d = list.getAtIndex(ADDRESS, i);
                    if (Verbs.deviceName(d).equals(device)) {
                        return Verbs.openDevice(d);
                    }
                }
            } finally {
                Verbs.freeDeviceList(list);
            }
        }
        throw new IllegalStateException("RDMA device " + device + " is gone (it was listed when the conduit looked)");
    }

    /** Creates the completion queue of {@code entries} (at most the device's) and the shared receive queue. */
    void createQueues(int cqEntries, int srqEntries) {
        if (srqEntries > maxSrqWr) {
            throw new IllegalArgumentException(name + " takes at most " + maxSrqWr + " receives in a shared receive"
                + " queue and the conduit needs " + srqEntries + ": lower " + IbvConduitSettings.CREDITS + " or "
                + IbvConduitSettings.RMA_OPS);
        }
        final MemorySegment c = Verbs.createCq(context, Math.min(cqEntries, maxCqe));
        this.cq = c;
        closers.push(() -> Verbs.destroyCq(c));
        final MemorySegment s = Verbs.createSrq(pd, srqEntries, 1);
        this.srq = s;
        closers.push(() -> Verbs.destroySrq(s));
    }

    MemorySegment cq() {
        return cq;
    }

    MemorySegment srq() {
        return srq;
    }

    /**
     * An RC QP completing on the CQ and receiving from the SRQ, moved to INIT (remote read and write allowed, and
     * atomics where the device has them).
     */
    MemorySegment createQp(int sendWr, int maxInline) {
        final MemorySegment qp = VerbsQp.createRc(pd, cq, cq, srq, new VerbsQp.Capacity(sendWr, 0, 1, 1, maxInline));
        closers.push(() -> VerbsQp.destroy(qp));
        VerbsQp.toInit(qp, port, Verbs.IBV_ACCESS_LOCAL_WRITE | Verbs.IBV_ACCESS_REMOTE_WRITE
            | Verbs.IBV_ACCESS_REMOTE_READ | (atomics ? Verbs.IBV_ACCESS_REMOTE_ATOMIC : 0));
        return qp;
    }

    /** A completion queue of {@code entries} (at most the device's), destroyed by the close. */
    MemorySegment createCq(int entries) {
        final MemorySegment c = Verbs.createCq(context, Math.min(entries, maxCqe));
        closers.push(() -> Verbs.destroyCq(c));
        return c;
    }

    /**
     * A UD QP completing sends and receives on {@code cq}, with a receive queue of its own, brought to RTS with
     * {@code qkey}; destroyed by the close.
     */
    MemorySegment createUdQp(MemorySegment cq, int sends, int receives, int qkey) {
        final MemorySegment qp = VerbsQp.createUd(pd, cq, cq, new VerbsQp.Capacity(sends, receives, 1, 1, 0));
        closers.push(() -> VerbsQp.destroy(qp));
        VerbsQp.toInitUd(qp, port, qkey);
        VerbsQp.toRtrUd(qp);
        VerbsQp.toRtsUd(qp, 0);
        return qp;
    }

    /** An address handle to the port of GID {@code gid} (16 bytes) and LID {@code lid}; destroyed by the close. */
    MemorySegment createAh(byte[] gid, int lid) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment g = arena.allocate(16, 8);
            MemorySegment.copy(MemorySegment.ofArray(gid), 0, g, 0, 16);
            final MemorySegment ah = VerbsAh.create(pd, port, g, gidIndex, lid);
            closers.push(() -> VerbsAh.destroy(ah));
            return ah;
        }
    }

    /**
     * {@code ibv_reg_mr}: local write, and with {@code remote} remote read, write and atomics (where the device has
     * them). With {@code untilClose} the
     * close deregisters it; otherwise the caller does, by {@link #deregister}.
     */
    MemorySegment register(MemorySegment memory, boolean remote, boolean untilClose) {
        final int access = Verbs.IBV_ACCESS_LOCAL_WRITE
            | (remote ? Verbs.IBV_ACCESS_REMOTE_WRITE | Verbs.IBV_ACCESS_REMOTE_READ
            | (atomics ? Verbs.IBV_ACCESS_REMOTE_ATOMIC : 0) : 0);
        final MemorySegment mr = Verbs.regMr(pd, memory, access);
        if (untilClose) {
            closers.push(() -> Verbs.deregMr(mr));
        }
        return mr;
    }

    /**
     * Registers a program's memory for peers' RDMA ({@code GEX_IBV_PEER_KEYS=on}): remote reads, and remote writes and
     * atomics (where the device has them) unless it is read-only; released by {@link #deregister}.
     */
    MemorySegment registerForPeers(MemorySegment memory, boolean writable) {
        final int access = writable ? Verbs.IBV_ACCESS_LOCAL_WRITE | Verbs.IBV_ACCESS_REMOTE_WRITE
            | Verbs.IBV_ACCESS_REMOTE_READ | (atomics ? Verbs.IBV_ACCESS_REMOTE_ATOMIC : 0)
            : Verbs.IBV_ACCESS_REMOTE_READ;
        return Verbs.regMr(pd, memory, access);
    }

    static void deregister(MemorySegment mr) {
        Verbs.deregMr(mr);
    }

    /** Destroys every object, newest first; the first failure is thrown after all were tried. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException first = null;
        while (!closers.isEmpty()) {
            try {
                closers.pop().run();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** "RoCE v2" or "IB": the GID type the QPs route by ({@link IbvGids} picks RoCE v2 on Ethernet). */
    String gidType() {
        return roce ? "RoCE v2" : "IB";
    }
}
