package org.gexj.ibv;

import org.gexj.PeerFailedException;
import org.gexj.ibv.ffm.Errno;
import org.gexj.ibv.ffm.RecvWr;
import org.gexj.ibv.ffm.SendWr;
import org.gexj.ibv.ffm.Verbs;
import org.gexj.ibv.ffm.VerbsOps;
import org.gexj.ibv.ffm.VerbsQp;
import org.gexj.ibv.ffm.WorkCompletions;
import org.gexj.ibv.wire.IbvConnectionCodec;
import org.gexj.rdma.RdmaCompletions;
import org.gexj.rdma.RdmaErrorEntry;
import org.gexj.rdma.RdmaNic;
import org.gexj.rdma.RdmaPeerRegistering;
import org.gexj.rdma.RdmaRegion;
import org.gexj.spi.AtomicCodes;
import org.gexj.spi.Bootstrap;
import org.gexj.spi.JobHealth;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ThreadLocalRandom;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One rank's verbs objects as the RDMA engine's NIC: one CQ for sends and receives, one shared receive queue (one
 * message per buffer, so the engine's credits count messages), and one RC queue pair per peer (toward itself, a pair
 * of QPs connected to each other). The QPs toward peers are made and connected at open ({@link #connectStatic}), or
 * on demand ({@link #connectOnDemand}): then a send toward a peer not yet connected starts the connection
 * ({@link IbvConnector}, over {@link IbvDatagrams}) and returns {@link RdmaNic#AGAIN}, so the engine keeps the frame
 * in its backlog and sends it once the QP is connected; the connection's datagrams are read with the completions.
 * The only class of the conduit that posts work requests and polls the CQ, through the device's ops table
 * ({@link VerbsOps}); each data-path method allocates nothing and returns {@code 0}, {@link RdmaNic#AGAIN} for a full
 * send or receive queue ({@code ENOMEM}) or a peer not yet connected, or {@code -errno}.
 *
 * <p>Every send is signaled, an inline one with {@code wr_id} 0 (the engine ignores context 0), so that the send
 * queues drain. A completion in error stops a read there: it and the entries after it wait (in
 * {@link IbvCompletionReader}) for {@link #readError} and the next reads, in the CQ's order. Its text names the verbs
 * status and the peer.
 *
 * <p>Threads: not thread-safe; the engine makes every call under its lock.
 */
final class IbvNic implements RdmaPeerRegistering, AutoCloseable {
    private static final int SIGNALED = Verbs.IBV_SEND_SIGNALED;
    private static final int INLINE = Verbs.IBV_SEND_SIGNALED | Verbs.IBV_SEND_INLINE;
    /**
     * 4.096 us * 2^14 = 67 ms before a lost packet is sent again; 6 tries before the QP fails. Not 7: rxe takes a
     * retry count of 7 for "for ever" (as the IB spec does for RNR retries only), and a dead peer went unnoticed.
     */
    private static final int TIMEOUT = 14;
    private static final int RETRIES = 6;
    /** A peer without receive buffers is retried for ever: it posts more as it polls. */
    private static final int RNR_FOREVER = 7;

    /** Reads of the CQ between two looks at the connection datagrams while no connection is under way (2^k). */
    private static final int DATAGRAM_PERIOD = 64;

    private final IbvDevice device;
    private final JobHealth health;
    private final int rank;
    private final int maxInline;
    /** {@code GEX_IBV_PEER_KEYS}: registrations are registered with the device for peers, their keys in descriptors. */
    private final boolean peerKeys;
    private final int sendQueueDepth;
    private final VerbsOps ops;
    private final MemorySegment cq;
    private final MemorySegment srq;
    private final MemorySegment[] qps;
    /** The second QP of the pair toward this rank itself, which receives what {@code qps[rank]} sends. */
    private final MemorySegment mirror;
    private final IbvQpTable qpRanks;
    private final IbvConnector connector;
    /** The on-demand connections' UD QP; null when connecting statically. */
    private IbvDatagrams datagrams;
    private IbvConnectionCodec.Address[] addresses;
    /** The engine's: posts a peer's share of receive buffers, run as its QP is made (on demand only). */
    private Runnable connecting;
    private int reads;
    private final SendWr sendWr;
    private final RecvWr recvWr;
    private final String description;
    /** Polls the CQ; keeps an entry in error, and those after it, for {@link #readError} and the next reads. */
    private final IbvCompletionReader reader;
    private volatile long registeredBytes;

    /**
     * Creates the CQ, the SRQ and the QPs (in INIT) on {@code device}, which the NIC's close closes.
     *
     * @param cqEntries  completions that may be pending at once (capped at the device's maximum)
     * @param srqEntries receive buffers the engine posts
     */
    IbvNic(IbvDevice device, IbvConduitSettings settings, int rank, int size, Arena arena, long cqEntries,
           int srqEntries, JobHealth health) {
        this.device = device;
        this.health = health;
        this.rank = rank;
        this.maxInline = settings.maxInline();
        this.peerKeys = settings.peerKeys();
        // every frame, RMA chunk and credit message toward one peer may be in its queue at once
        this.sendQueueDepth = (int) Math.min(device.maxQpWr,
            settings.sendBuffers() + settings.rmaOperations() + 4L * settings.credits() + 64);
        final long sendCompletions = (long) (size + 1) * sendQueueDepth;
        device.createQueues((int) Math.min(Integer.MAX_VALUE, cqEntries + sendCompletions), srqEntries);
        this.cq = device.cq();
        this.srq = device.srq();
        this.ops = new VerbsOps(device.context);
        this.reader = new IbvCompletionReader((max, wc) -> ops.pollCq(cq, max, wc));
        this.qps = new MemorySegment[size];
        this.qpRanks = new IbvQpTable(size + 1);
        this.connector = new IbvConnector(new Link(), rank, size, settings.timeoutNanos(),
            ThreadLocalRandom.current());
        this.mirror = device.createQp(sendQueueDepth, maxInline);
        qpRanks.put(VerbsQp.qpNum(mirror), rank);
        this.sendWr = new SendWr(arena);
        this.recvWr = new RecvWr(arena);
        this.description = "ibv (" + device.name + " port " + device.port + ")";
    }

    /** Makes the RC QP toward {@code peer} (in INIT) and records which rank it serves. */
    private int createQp(int peer) {
        if (peer != rank && connecting != null) {
            connecting.run(); // the SRQ gets the peer's share before the QP can connect, so before it can send
        }
        final MemorySegment qp = device.createQp(sendQueueDepth, maxInline);
        qps[peer] = qp;
        // before the QP is connected, so before any completion can name it: a poll decoding entries outside the
        // engine's lock finds it (the lock that the connect released and the CQ read took orders them)
        qpRanks.put(VerbsQp.qpNum(qp), peer);
        return VerbsQp.qpNum(qp);
    }

    /** Connects the pair of QPs toward this rank itself to each other. */
    private void connectSelf(int psn) {
        final int own = createQp(rank);
        connect(qps[rank], VerbsQp.qpNum(mirror), psn, device.gid, device.lid, device.activeMtu, psn);
        connect(mirror, own, psn, device.gid, device.lid, device.activeMtu, psn);
        connector.connectedAtOpen(rank);
    }

    /**
     * Collective over the job ({@code GEX_IBV_CONNECT=ondemand}): makes the UD QP of the connection messages,
     * publishes (LID, GID, UD QP number, tag) in one allgather, and connects the pair toward this rank itself. Every
     * other QP is made when the first operation toward its peer, or the peer's request, needs it.
     */
    void connectOnDemand(Bootstrap bootstrap, Arena arena) {
        final int size = qps.length;
        this.datagrams = new IbvDatagrams(device, ops, arena, rank, size);
        final byte[][] blobs = bootstrap.allgather(IbvConnectionCodec.encode(new IbvConnectionCodec.Address(
            device.lid, device.activeMtu, device.gid, datagrams.qpn(), ThreadLocalRandom.current().nextInt())));
        final IbvConnectionCodec.Address[] all = new IbvConnectionCodec.Address[size];
        for (int r = 0; r < size; r++) {
            all[r] = IbvConnectionCodec.decodeAddress(blobs[r], r);
        }
        this.addresses = all;
        datagrams.start(all, all[0].tag());
        connectSelf(ThreadLocalRandom.current().nextInt(1 << 24));
    }

    /** What the connection protocol asks of the verbs objects. */
    private final class Link implements IbvConnector.Link {
        @Override
        public int createQp(int peer) {
            return IbvNic.this.createQp(peer);
        }

        @Override
        public void connect(int peer, int remoteQpn, int remotePsn, int localPsn) {
            final IbvConnectionCodec.Address to = addresses[peer];
            IbvNic.this.connect(qps[peer], remoteQpn, remotePsn, to.gid(), to.lid(),
                Math.min(device.activeMtu, to.mtu()), localPsn);
        }

        @Override
        public void send(int peer, int kind, int qpn, int psn) {
            datagrams.send(peer, kind, qpn, psn);
        }
    }

    /**
     * Collective over the job ({@code GEX_IBV_CONNECT=static}): publishes (LID, GID, PSN, a QP number per rank) in
     * one allgather, and moves the QP toward each peer to RTR and RTS against the peer's QP toward this rank; the
     * pair toward this rank itself is connected locally.
     */
    void connectStatic(Bootstrap bootstrap) {
        final int size = qps.length;
        final int psn = ThreadLocalRandom.current().nextInt(1 << 24);
        final int[] mine = new int[size];
        for (int r = 0; r < size; r++) {
            mine[r] = r == rank ? 0 : createQp(r);
        }
        final byte[][] blobs = bootstrap.allgather(IbvConnectionCodec.encode(
            new IbvConnectionCodec.Endpoint(device.lid, device.activeMtu, device.gid, psn, mine)));
        for (int r = 0; r < size; r++) {
            final IbvConnectionCodec.Endpoint peer = IbvConnectionCodec.decode(blobs[r], r, size);
            if (r != rank) {
                connect(qps[r], peer.qpns()[rank], peer.psn(), peer.gid(), peer.lid(),
                    Math.min(device.activeMtu, peer.mtu()), psn);
                connector.connectedAtOpen(r);
            }
        }
        connectSelf(psn);
    }

    /** RTR toward the peer QP {@code remoteQpn} at GID {@code gid} (16 bytes) and LID {@code lid}, then RTS. */
    private void connect(MemorySegment qp, int remoteQpn, int remotePsn, byte[] gid, int lid, int mtu, int psn) {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment g = scratch.allocate(16, 8);
            MemorySegment.copy(MemorySegment.ofArray(gid), 0, g, 0, 16);
            VerbsQp.toRtr(qp, device.port, remoteQpn, remotePsn, g, device.gidIndex, lid, mtu, device.readsInFlight);
        }
        VerbsQp.toRts(qp, psn, TIMEOUT, RETRIES, RNR_FOREVER, device.readsInFlight);
    }

    /** RC queue pairs made so far (the connection datagrams' UD QP not counted). */
    int queuePairs() {
        return qpRanks.size();
    }

    IbvConnector connector() {
        return connector;
    }

    /** Connection datagrams lost on sending, and received ones dropped as foreign; 0 when connecting statically. */
    long datagramsLost() {
        return datagrams == null ? 0 : datagrams.lost();
    }

    long datagramsForeign() {
        return datagrams == null ? 0 : datagrams.foreign();
    }

    /** On demand, a rank pins receive buffers for the peers it connects to, not for all. */
    @Override
    public boolean receivesPerConnection(Runnable connecting) {
        if (datagrams == null) {
            return false;
        }
        this.connecting = connecting;
        return true;
    }

    /** A peer never connected, nor connecting, has no CLOSE to exchange. */
    @Override
    public boolean engaged(int peer) {
        return connector.started(peer);
    }

    int maxInline() {
        return maxInline;
    }

    int sendQueueDepth() {
        return sendQueueDepth;
    }

    long registeredBytes() {
        return registeredBytes;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public String conduit() {
        return "ibv";
    }

    @Override
    public long maxMessageSize() {
        return device.maxMessage;
    }

    @Override
    public boolean injects(long length) {
        return length <= maxInline;
    }

    /** The engine's 8 bytes: the sender's rank (from the QP) and the 32-bit immediate. */
    @Override
    public long completionDataBytes() {
        return Long.BYTES;
    }

    @Override
    public boolean localRegistration() {
        return true;
    }

    @Override
    public boolean virtualAddresses() {
        return true;
    }

    /** An SRQ receive takes one message. */
    @Override
    public boolean multiReceive() {
        return false;
    }

    @Override
    public boolean namesSources() {
        return true;
    }

    @Override
    public long address(int peer) {
        return peer;
    }

    @Override
    public RdmaRegion register(MemorySegment memory, boolean remote, boolean untilClose) {
        final MemorySegment mr = device.register(memory, remote, untilClose);
        final long bytes = memory.byteSize();
        registeredBytes += bytes;
        final Runnable release = untilClose ? () -> { } : () -> {
            IbvDevice.deregister(mr);
            registeredBytes -= bytes;
        };
        return new RdmaRegion(Integer.toUnsignedLong(Verbs.lkey(mr)), Integer.toUnsignedLong(Verbs.rkey(mr)),
            release);
    }

    /** {@code GEX_IBV_PEER_KEYS}: see {@link IbvConduitSettings#peerKeys}. */
    @Override
    public boolean registersForPeers() {
        return peerKeys;
    }

    @Override
    public RdmaRegion registerForPeers(MemorySegment memory, boolean writable) {
        final MemorySegment mr = device.registerForPeers(memory, writable);
        return new RdmaRegion(Integer.toUnsignedLong(Verbs.lkey(mr)), Integer.toUnsignedLong(Verbs.rkey(mr)),
            () -> IbvDevice.deregister(mr));
    }

    @Override
    public long send(long buffer, long length, long descriptor, int peer, long context) {
        return post(peer, sendWr.send(context, buffer, (int) length, (int) descriptor,
            length <= maxInline ? INLINE : SIGNALED));
    }

    /** An inline send: the buffer is free on return; its completion has context 0. */
    @Override
    public long inject(long buffer, long length, int peer) {
        return post(peer, sendWr.send(0, buffer, (int) length, 0, INLINE));
    }

    /** {@code ibv_post_srq_recv}; the buffer's address goes into the context slot, for {@link IbvCompletions}. */
    @Override
    public long postReceive(long buffer, long length, long descriptor, long context) {
        IbvCompletions.EVERYWHERE.set(JAVA_LONG, context, buffer);
        return code(ops.postSrqRecv(srq, recvWr.set(context, buffer, (int) length, (int) descriptor)));
    }

    @Override
    public long transfer(boolean read, long local, long length, long descriptor, int peer, long remote, long key,
                         long context) {
        return post(peer, read
            ? sendWr.rdmaRead(context, local, (int) length, (int) descriptor, remote, (int) key, SIGNALED)
            : sendWr.rdmaWrite(context, local, (int) length, (int) descriptor, remote, (int) key, SIGNALED));
    }

    /** RDMA WRITE_WITH_IMM: the immediate is {@code data}'s low 32 bits; the target learns the rank from the QP. */
    @Override
    public long writeData(long local, long length, long descriptor, long data, int peer, long remote, long key,
                          long context) {
        return post(peer, sendWr.rdmaWriteWithImm(context, local, (int) length, (int) descriptor, remote, (int) key,
            SIGNALED, (int) data));
    }

    /**
     * The device's 64-bit atomics where it has them: SUM as fetch-and-add, CSWAP as compare-and-swap and READ as a
     * fetch-and-add of 0 on INT64 and UINT64; CSWAP and READ on DOUBLE too, which compare and fetch bits (GASNet's
     * ibv-conduit offers the same set).
     */
    @Override
    public boolean atomicValid(int datatype, int op, int kind) {
        if (!device.atomics) {
            return false;
        }
        final boolean integer = datatype == AtomicCodes.INT64 || datatype == AtomicCodes.UINT64;
        return switch (op) {
            case AtomicCodes.SUM -> integer && kind != ATOMIC_COMPARE;
            case AtomicCodes.READ -> (integer || datatype == AtomicCodes.DOUBLE) && kind == ATOMIC_FETCH;
            case AtomicCodes.CSWAP -> (integer || datatype == AtomicCodes.DOUBLE) && kind == ATOMIC_COMPARE;
            default -> false;
        };
    }

    /** The HCA performs them without the target's CPU. */
    @Override
    public boolean atomicsPreferred() {
        return device.atomics;
    }

    /** One atomic work request; the previous value lands at {@code staging + 16} in every case. */
    @Override
    public long atomic(int kind, int datatype, int op, long operand, long compare, long staging, long descriptor,
                       int peer, long remote, long key, long context) {
        final boolean cas = op == AtomicCodes.CSWAP;
        return post(peer, sendWr.atomic(context, cas ? Verbs.IBV_WR_ATOMIC_CMP_AND_SWP
            : Verbs.IBV_WR_ATOMIC_FETCH_AND_ADD, staging + 16, (int) descriptor, remote, (int) key,
            cas ? compare : op == AtomicCodes.READ ? 0 : operand, cas ? operand : 0, SIGNALED));
    }

    private long post(int peer, SendWr wr) {
        if (!connector.connected(peer)) {
            connector.want(peer, System.nanoTime());
            return AGAIN; // kept in the engine's backlog until the QP is connected
        }
        return code(ops.postSend(qps[peer], wr));
    }

    private static long code(int rc) {
        return rc == 0 ? 0 : rc == Errno.ENOMEM ? AGAIN : -rc;
    }

    @Override
    public RdmaCompletions completions(Arena arena, int capacity) {
        reader.reserve(arena, capacity);
        return new IbvCompletions(new WorkCompletions(arena, capacity), qpRanks);
    }

    /** {@code ibv_poll_cq}, up to the first entry in error ({@link IbvCompletionReader}). */
    @Override
    public long read(RdmaCompletions entries, int count) {
        if (datagrams != null && (connector.busy() || (++reads & (DATAGRAM_PERIOD - 1)) == 0)) {
            serveConnections();
        }
        return reader.read(((IbvCompletions) entries).wc, count);
    }

    /**
     * Takes the connection datagrams and sends overdue ones again. A peer that the data path has waited for longer
     * than the timeout fails the job, named.
     */
    private void serveConnections() {
        final long now = System.nanoTime();
        datagrams.poll(connector, now);
        final int late = connector.tick(now);
        if (late >= 0) {
            final String reason = connector.lateReason(late, IbvConduitSettings.TIMEOUT);
            health.fail(late, reason);
            throw new PeerFailedException(late, reason);
        }
    }

    /** Nothing: the device progresses on its own; completions are taken by {@link #read}. */
    @Override
    public void progress() {
    }

    @Override
    public RdmaErrorEntry errorEntry(Arena arena) {
        return new ErrorEntry();
    }

    /** The entry in error a {@link #read} stopped at: 1 if there was one. */
    @Override
    public long readError(RdmaErrorEntry entry) {
        final int i = reader.pendingError();
        if (i < 0) {
            return 0;
        }
        final WorkCompletions carry = reader.carry();
        final ErrorEntry e = (ErrorEntry) entry;
        e.wrId = carry.wrId(i);
        e.status = carry.status(i);
        e.vendorErr = carry.vendorErr(i);
        e.qpNum = carry.qpNum(i);
        reader.errorTaken();
        return 1;
    }

    /** A work completion in error: its text names the verbs status and the peer of its QP. */
    private final class ErrorEntry implements RdmaErrorEntry {
        long wrId;
        int status;
        int vendorErr;
        int qpNum;

        @Override
        public long context() {
            return wrId;
        }

        @Override
        public int peer() {
            return qpRanks.rank(qpNum);
        }

        @Override
        public String text() {
            final int peer = qpRanks.rank(qpNum);
            return Verbs.wcStatusText(status) + " (ibv_wc_status " + status + ", vendor_err 0x"
                + Integer.toHexString(vendorErr) + ") on the QP " + qpNum
                + (peer >= 0 ? " to rank " + peer : " of no known peer") + " over " + description;
        }
    }

    @Override
    public String strerror(long code) {
        return code == ERROR_AVAILABLE ? "completion in error" : Errno.text((int) -code);
    }

    @Override
    public RuntimeException failure(String call, long code) {
        return code == ERROR_AVAILABLE ? new IbvException(call) : new IbvException(call, (int) -code,
            strerror(code));
    }

    /** Destroys the QPs, registrations, queues, PD and device context, newest first. */
    @Override
    public void close() {
        device.close();
    }
}
