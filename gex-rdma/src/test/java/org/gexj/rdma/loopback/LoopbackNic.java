package org.gexj.rdma.loopback;

import org.gexj.rdma.RdmaCompletions;
import org.gexj.rdma.RdmaErrorEntry;
import org.gexj.rdma.RdmaPeerRegistering;
import org.gexj.rdma.RdmaRegion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A test double of an RDMA NIC for the {@link org.gexj.rdma.RdmaEngine}, over a {@link LoopbackFabric} shared by
 * the ranks of an in-process job. With {@code multiReceive} it lands many messages per receive buffer, as
 * libfabric's {@code FI_MULTI_RECV} does for ofi; without, one message per buffer, as a verbs shared receive queue
 * does for ibv, and a write with data consumes a posted buffer too. Sends find a full target back-pressured
 * ({@link #AGAIN}), and RMA to a bad key completes in error. On demand (one message per buffer only), a rank posts
 * a peer's share of receive buffers as it first asks to reach it or is asked, as ibv does as it makes the QP, and an
 * operation toward a peer that has not posted its share for this rank yet returns {@link #AGAIN}.
 */
final class LoopbackNic implements RdmaPeerRegistering, AutoCloseable {
    static final long MAX_MESSAGE = 64 * 1024;
    static final long INJECT = 64;

    private final LoopbackFabric fabric;
    private final String job;
    private final int rank;
    private long nextKey = 1;
    /** The engine's, on demand: posts a peer's share of receive buffers. */
    private Runnable connecting;
    private final boolean[] shared;
    /** {@link #registersForPeers}. */
    private final boolean peerKeys;

    LoopbackNic(LoopbackFabric fabric, String job, int rank, int size, boolean peerKeys) {
        this.fabric = fabric;
        this.peerKeys = peerKeys;
        this.job = job;
        this.rank = rank;
        this.shared = new boolean[size];
        shared[rank] = true;
        fabric.shared(rank, rank);
    }

    @Override
    public boolean receivesPerConnection(Runnable connecting) {
        if (!fabric.onDemand) {
            return false;
        }
        this.connecting = connecting;
        return true;
    }

    @Override
    public boolean engaged(int peer) {
        return connecting == null || shared[peer];
    }

    /** Whether operations may go to {@code peer}: on demand, once it posted its share for this rank. */
    private boolean reaches(int peer) {
        if (connecting == null) {
            return true;
        }
        share(peer);
        return fabric.reach(rank, peer);
    }

    private void share(int peer) {
        if (!shared[peer]) {
            shared[peer] = true;
            connecting.run();
            fabric.shared(rank, peer);
        }
    }

    @Override
    public String description() {
        return "rdma-loopback (" + (fabric.multiReceive ? "multi-receive" : "one message per buffer") + ")";
    }

    @Override
    public String conduit() {
        return "rdma-loopback";
    }

    @Override
    public long maxMessageSize() {
        return MAX_MESSAGE;
    }

    @Override
    public boolean injects(long length) {
        return length <= INJECT;
    }

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

    @Override
    public boolean multiReceive() {
        return fabric.multiReceive;
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
        final long key = nextKey++;
        fabric.register(rank, key, memory, true);
        return new RdmaRegion(key, key, () -> fabric.deregister(rank, key));
    }

    /** As a libfabric provider that checks keys, ranges and access: an error completion, the connection intact. */
    @Override
    public boolean registersForPeers() {
        return peerKeys;
    }

    @Override
    public RdmaRegion registerForPeers(MemorySegment memory, boolean writable) {
        final long key = nextKey++;
        fabric.register(rank, key, memory, writable);
        return new RdmaRegion(key, key, () -> fabric.deregister(rank, key));
    }

    @Override
    public long send(long buffer, long length, long descriptor, int peer, long context) {
        if (!reaches(peer) || !fabric.deliver(rank, peer, buffer, length)) {
            return AGAIN;
        }
        fabric.complete(rank, new LoopbackFabric.Entry(context, false, false, length, 0, 0, rank));
        return 0;
    }

    @Override
    public long inject(long buffer, long length, int peer) {
        return reaches(peer) && fabric.deliver(rank, peer, buffer, length) ? 0 : AGAIN;
    }

    @Override
    public long postReceive(long buffer, long length, long descriptor, long context) {
        fabric.post(rank, buffer, length, context);
        return 0;
    }

    @Override
    public long transfer(boolean read, long local, long length, long descriptor, int peer, long remote, long key,
                         long context) {
        if (!reaches(peer)) {
            return AGAIN;
        }
        return finish(fabric.transfer(rank, read, local, length, descriptor, peer, remote, key, false, 0), context);
    }

    @Override
    public long writeData(long local, long length, long descriptor, long data, int peer, long remote, long key,
                          long context) {
        if (!reaches(peer)) {
            return AGAIN;
        }
        return finish(fabric.transfer(rank, false, local, length, descriptor, peer, remote, key, true, data),
            context);
    }

    private long finish(long rc, long context) {
        if (rc == AGAIN) {
            return AGAIN;
        }
        final LoopbackFabric.Entry done = new LoopbackFabric.Entry(context, false, false, 0, 0, 0, rank);
        if (rc == 0) {
            fabric.complete(rank, done);
        } else {
            fabric.fail(rank, done); // a bad key: the operation completes in error, as a NIC reports it
        }
        return 0;
    }

    @Override
    public RdmaCompletions completions(Arena arena, int capacity) {
        return new Completions(capacity);
    }

    @Override
    public long read(RdmaCompletions entries, int count) {
        if (connecting != null) {
            for (int r; (r = fabric.nextRequest(rank)) >= 0; ) {
                share(r);
            }
        }
        final Completions c = (Completions) entries;
        int n = 0;
        LoopbackFabric.Entry e;
        while (n < count && (e = fabric.take(rank)) != null) {
            c.entries[n++] = e;
        }
        if (n > 0) {
            return n;
        }
        return fabric.hasError(rank) ? ERROR_AVAILABLE : AGAIN;
    }

    @Override
    public void progress() {
        // every operation completed when it was posted
    }

    @Override
    public RdmaErrorEntry errorEntry(Arena arena) {
        return new ErrorEntry();
    }

    @Override
    public long readError(RdmaErrorEntry entry) {
        final LoopbackFabric.Entry e = fabric.takeError(rank);
        if (e == null) {
            return AGAIN;
        }
        ((ErrorEntry) entry).context = e.context();
        return 1;
    }

    @Override
    public String strerror(long code) {
        return code == AGAIN ? "try again" : "loopback error " + code;
    }

    @Override
    public RuntimeException failure(String call, long code) {
        return new IllegalStateException(call + " failed: " + strerror(code) + " (" + code + ")");
    }

    @Override
    public void close() {
        fabric.closed(job);
    }

    /** The entries a {@link #read} took. */
    private static final class Completions implements RdmaCompletions {
        final LoopbackFabric.Entry[] entries;

        Completions(int capacity) {
            entries = new LoopbackFabric.Entry[capacity];
        }

        @Override
        public long context(int i) {
            return entries[i].context();
        }

        @Override
        public boolean remoteData(int i) {
            return entries[i].remoteData();
        }

        @Override
        public boolean releases(int i) {
            return entries[i].releases();
        }

        @Override
        public long length(int i) {
            return entries[i].length();
        }

        @Override
        public long buffer(int i) {
            return entries[i].buffer();
        }

        @Override
        public long data(int i) {
            return entries[i].data();
        }

        @Override
        public long source(int i) {
            return entries[i].source();
        }
    }

    /** The context of an operation that completed in error. */
    private static final class ErrorEntry implements RdmaErrorEntry {
        long context;

        @Override
        public long context() {
            return context;
        }

        @Override
        public String text() {
            return "remote access error (bad key or range)";
        }
    }
}
