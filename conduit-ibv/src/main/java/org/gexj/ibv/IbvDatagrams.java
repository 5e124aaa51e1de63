package org.gexj.ibv;

import org.gexj.ibv.ffm.RecvWr;
import org.gexj.ibv.ffm.SendWr;
import org.gexj.ibv.ffm.Verbs;
import org.gexj.ibv.ffm.VerbsOps;
import org.gexj.ibv.ffm.WorkCompletions;
import org.gexj.ibv.wire.IbvConnectFlyweight;
import org.gexj.ibv.wire.IbvConnectionCodec;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One rank's unreliable-datagram queue pair, which carries the on-demand connection protocol's messages
 * ({@link IbvConnector}, {@link IbvConnectFlyweight}): its own CQ for sends and receives, {@link #RECEIVES} posted
 * receive buffers and {@link #SENDS} send buffers in one registration, and an address handle per peer, made when the
 * peer is first written to. A datagram that finds no free send buffer or a full send queue is dropped: the protocol
 * sends it again. A received one is checked (job tag, ranks, sender's UD QP) before the connector sees it.
 *
 * <p>Threads: not thread-safe; {@link IbvNic} calls it under the engine's lock.
 */
final class IbvDatagrams {
    /** The Q_Key of every rank's UD QP ("GEX" + 1; the high bit clear, as non-privileged Q_Keys must be). */
    static final int QKEY = 0x47455801;
    static final int RECEIVES = 64;
    static final int SENDS = 16;
    /** A UD receive starts with the 40-byte global route header, sent or not. */
    private static final int GRH = Verbs.UD_GRH_BYTES;
    private static final int SLOT = GRH + IbvConnectFlyweight.LENGTH;
    /** wr_id of a send: this bit and the slot. */
    private static final long SEND_ID = 1L << 32;

    private final IbvDevice device;
    private final VerbsOps ops;
    private final int rank;
    private final int size;
    private final MemorySegment cq;
    private final MemorySegment qp;
    private final MemorySegment memory;
    private final int lkey;
    private final SendWr sendWr;
    private final RecvWr recvWr;
    private final WorkCompletions wc;
    private final IbvConnectFlyweight message = new IbvConnectFlyweight();
    private final boolean[] sending = new boolean[SENDS];
    private final MemorySegment[] handles;
    private IbvConnectionCodec.Address[] peers;
    private int tag;
    private int nextSend;
    private long lost;
    private long foreign;

    /** Makes the UD QP, brings it to RTS, and posts its receives. */
    IbvDatagrams(IbvDevice device, VerbsOps ops, Arena arena, int rank, int size) {
        this.device = device;
        this.ops = ops;
        this.rank = rank;
        this.size = size;
        this.cq = device.createCq(RECEIVES + SENDS);
        this.qp = device.createUdQp(cq, SENDS, RECEIVES, QKEY);
        this.memory = arena.allocate((long) (RECEIVES + SENDS) * SLOT, 64);
        this.lkey = Verbs.lkey(device.register(memory, false, true));
        this.sendWr = new SendWr(arena);
        this.recvWr = new RecvWr(arena);
        this.wc = new WorkCompletions(arena, 16);
        this.handles = new MemorySegment[size];
        for (int slot = 0; slot < RECEIVES; slot++) {
            post(slot);
        }
    }

    /** This rank's UD QP number, published in the start-up allgather. */
    int qpn() {
        return org.gexj.ibv.ffm.VerbsQp.qpNum(qp);
    }

    /** Every rank's address (from the allgather) and the job's tag: datagrams may flow from now. */
    void start(IbvConnectionCodec.Address[] addresses, int jobTag) {
        this.peers = addresses;
        this.tag = jobTag;
    }

    /** Datagrams dropped for lack of a send buffer or send queue space, or a send that failed. */
    long lost() {
        return lost;
    }

    /** Received datagrams dropped as malformed, of another job, or from a QP not the named rank's. */
    long foreign() {
        return foreign;
    }

    /** Sends a connection message to {@code peer}; best effort. */
    void send(int peer, int kind, int qpn, int psn) {
        int slot = -1;
        for (int i = 0; i < SENDS && slot < 0; i++) {
            final int s = (nextSend + i) % SENDS;
            slot = sending[s] ? -1 : s;
        }
        if (slot < 0) {
            lost++;
            return;
        }
        nextSend = (slot + 1) % SENDS;
        final long at = (long) (RECEIVES + slot) * SLOT;
        message.wrap(memory, at).write(kind, tag, rank, peer, qpn, psn);
        final IbvConnectionCodec.Address to = peers[peer];
        final int rc = ops.postSend(qp, sendWr.sendUd(SEND_ID | slot, memory.address() + at,
            IbvConnectFlyweight.LENGTH, lkey, Verbs.IBV_SEND_SIGNALED, handle(peer), to.udQpn(), QKEY));
        if (rc == 0) {
            sending[slot] = true;
        } else {
            lost++;
        }
    }

    private MemorySegment handle(int peer) {
        if (handles[peer] == null) {
            final IbvConnectionCodec.Address to = peers[peer];
            handles[peer] = device.createAh(to.gid(), to.lid());
        }
        return handles[peer];
    }

    /**
     * Reads the CQ: frees send buffers, and gives each valid received message to {@code connector}, reposting its
     * buffer.
     *
     * @return messages given to the connector
     */
    int poll(IbvConnector connector, long now) {
        int given = 0;
        int n;
        while ((n = ops.pollCq(cq, wc)) > 0) {
            for (int i = 0; i < n; i++) {
                final long id = wc.wrId(i);
                if ((id & SEND_ID) != 0) {
                    sending[(int) (id & 0xFFFF)] = false;
                    lost += wc.status(i) == 0 ? 0 : 1;
                    continue;
                }
                final int slot = (int) id;
                if (wc.status(i) == 0 && deliver(slot, wc.byteLen(i), wc.srcQp(i), connector, now)) {
                    given++;
                }
                post(slot);
            }
        }
        if (n < 0) {
            throw new IbvException("ibv_poll_cq of the connection CQ", -n, org.gexj.ibv.ffm.Errno.text(-n));
        }
        return given;
    }

    private boolean deliver(int slot, int length, int sourceQp, IbvConnector connector, long now) {
        message.wrap(memory, (long) slot * SLOT + GRH);
        if (length != SLOT || !message.valid(tag, rank, size) || peers[message.source()].udQpn() != sourceQp) {
            foreign++;
            return false;
        }
        connector.receive(message.source(), message.kind(), message.qpn(), message.psn(), now);
        return true;
    }

    private void post(int slot) {
        final int rc = ops.postRecv(qp, recvWr.set(slot, memory.address() + (long) slot * SLOT, SLOT, lkey));
        if (rc != 0) {
            throw new IbvException("ibv_post_recv on the connection QP", rc, org.gexj.ibv.ffm.Errno.text(rc));
        }
    }
}
