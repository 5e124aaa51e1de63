package org.gexj.rdma.loopback;

import org.gexj.rdma.RdmaNic;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The wire between the {@link LoopbackNic}s of one in-process job: every rank's posted receive buffers, completion
 * queue, error queue and registered memory, behind one lock. Messages are copied into the target's posted buffers
 * at once; RMA copies between registered memory, checking the key and the bounds as a NIC does, and a bad key
 * completes in error. On demand, a rank reaches a peer only once that peer has posted its share of receive buffers
 * for it, as ibv's connection exchange orders it. A test double of an RDMA NIC: it allocates per message.
 */
final class LoopbackFabric {
    private static final Map<String, LoopbackFabric> JOBS = new ConcurrentHashMap<>();

    /** A posted receive buffer, and how much of it messages filled (multi-receive). */
    static final class Posted {
        final long address;
        final long length;
        final long context;
        long used;

        Posted(long address, long length, long context) {
            this.address = address;
            this.length = length;
            this.context = context;
        }
    }

    /** One completion entry. */
    record Entry(long context, boolean remoteData, boolean releases, long length, long buffer, long data,
                 long source) {
    }

    /** One rank's side of the wire. */
    static final class Port {
        final ArrayDeque<Posted> posted = new ArrayDeque<>();
        final ArrayDeque<Entry> completions = new ArrayDeque<>();
        final ArrayDeque<Entry> errors = new ArrayDeque<>();
        final Map<Long, MemorySegment> regions = new HashMap<>();
        /** Keys of regions peers may read but not write. */
        final java.util.Set<Long> readOnly = new java.util.HashSet<>();
    }

    final boolean multiReceive;
    final boolean onDemand;
    /** {@code shared[a][b]}: rank {@code a} posted its share of receive buffers for rank {@code b} (on demand). */
    private final boolean[][] shared;
    /** {@code requested[a][b]}: rank {@code b} asked to reach rank {@code a} (on demand). */
    private final boolean[][] requested;
    /** Where a multi-receive buffer with less room than this is released (libfabric's FI_OPT_MIN_MULTI_RECV). */
    final long minMultiReceive;
    private final Port[] ports;
    private int open;

    private LoopbackFabric(int size, boolean multiReceive, boolean onDemand, long minMultiReceive) {
        this.multiReceive = multiReceive;
        this.onDemand = onDemand;
        this.shared = new boolean[size][size];
        this.requested = new boolean[size][size];
        this.minMultiReceive = minMultiReceive;
        this.ports = new Port[size];
        this.open = size;
        for (int r = 0; r < size; r++) {
            ports[r] = new Port();
        }
    }

    static LoopbackFabric join(String job, int size, boolean multiReceive, boolean onDemand, long minMultiReceive) {
        return JOBS.computeIfAbsent(job, j -> new LoopbackFabric(size, multiReceive, onDemand, minMultiReceive));
    }

    /** On demand: {@code rank} posted its share for {@code peer}. */
    synchronized void shared(int rank, int peer) {
        shared[rank][peer] = true;
    }

    /** On demand: {@code rank} asks to reach {@code peer}. @return whether {@code peer} has posted its share for it */
    synchronized boolean reach(int rank, int peer) {
        requested[peer][rank] = true;
        return shared[peer][rank];
    }

    /** On demand: a rank that asked to reach {@code rank} and has no share of its buffers yet, or -1. */
    synchronized int nextRequest(int rank) {
        for (int r = 0; r < requested[rank].length; r++) {
            if (requested[rank][r] && !shared[rank][r]) {
                return r;
            }
        }
        return -1;
    }

    /** A rank's NIC closed: the job's fabric is forgotten with the last. */
    synchronized void closed(String job) {
        if (--open == 0) {
            JOBS.remove(job);
        }
    }

    Port port(int rank) {
        return ports[rank];
    }

    /**
     * Lands a message of {@code length} bytes at {@code from} in {@code peer}'s next posted buffer.
     *
     * @return false if {@code peer} has no room posted
     */
    synchronized boolean deliver(int source, int peer, long from, long length) {
        if (onDemand && source != peer && !shared[peer][source]) {
            throw new IllegalStateException("rank " + source + " sent to rank " + peer + " before it posted buffers");
        }
        final Port target = ports[peer];
        Posted p = target.posted.peekFirst();
        if (multiReceive) {
            while (p != null && p.length - p.used < length) {
                target.posted.pollFirst(); // too little room left: released empty, as shm reports a release alone
                target.completions.add(new Entry(p.context, false, true, 0, p.address + p.used, 0, source));
                p = target.posted.peekFirst();
            }
        }
        if (p == null || p.length - p.used < length) {
            return false;
        }
        final long at = p.address + p.used;
        MemorySegment.copy(MemorySegment.ofAddress(from).reinterpret(length), 0,
            MemorySegment.ofAddress(at).reinterpret(length), 0, length);
        p.used += length;
        final boolean releases = !multiReceive || p.length - p.used < minMultiReceive;
        if (releases) {
            target.posted.pollFirst();
        }
        target.completions.add(new Entry(p.context, false, releases, length, at, 0, source));
        return true;
    }

    /**
     * Copies between {@code rank}'s local memory, registered under {@code descriptor} (as a NIC with
     * {@code FI_MR_LOCAL} needs it), and {@code peer}'s registered memory named by {@code key}; a write with
     * {@code data} also tells the target, consuming one of its posted buffers where each takes one message.
     *
     * @return 0, {@link RdmaNic#AGAIN} if a write with data finds no buffer posted, or -1 for a bad key, descriptor
     *         or range
     */
    synchronized long transfer(int rank, boolean read, long local, long length, long descriptor, int peer,
                               long remote, long key, boolean withData, long data) {
        final MemorySegment region = ports[peer].regions.get(key);
        if (region == null || remote < region.address() || remote + length > region.address() + region.byteSize()
            || !read && ports[peer].readOnly.contains(key) || !region.scope().isAlive()) {
            return -1; // no such key, outside the region, a write into a read-only one, or memory already unmapped
        }
        final MemorySegment mine = ports[rank].regions.get(descriptor);
        if (length > 0 && (mine == null || !mine.scope().isAlive() || local < mine.address()
            || local + length > mine.address() + mine.byteSize())) {
            // local memory the descriptor does not cover, or whose arena was closed (a NIC would move the old pinned
            // pages, not the memory now at that address): a stale or wrong registration
            return -1;
        }
        if (withData && !multiReceive && ports[peer].posted.isEmpty()) {
            return RdmaNic.AGAIN;
        }
        final MemorySegment here = MemorySegment.ofAddress(local).reinterpret(length);
        final MemorySegment there = MemorySegment.ofAddress(remote).reinterpret(length);
        if (read) {
            MemorySegment.copy(there, 0, here, 0, length);
        } else {
            MemorySegment.copy(here, 0, there, 0, length);
        }
        if (withData) {
            final Port target = ports[peer];
            final Posted p = multiReceive ? null : target.posted.pollFirst();
            target.completions.add(new Entry(p == null ? 0 : p.context, true, p != null, 0, 0, data, rank));
        }
        return 0;
    }

    synchronized void post(int rank, long address, long length, long context) {
        ports[rank].posted.addLast(new Posted(address, length, context));
    }

    synchronized void complete(int rank, Entry entry) {
        ports[rank].completions.add(entry);
    }

    synchronized void fail(int rank, Entry entry) {
        ports[rank].errors.add(entry);
    }

    synchronized Entry take(int rank) {
        return ports[rank].completions.pollFirst();
    }

    synchronized Entry takeError(int rank) {
        return ports[rank].errors.pollFirst();
    }

    synchronized boolean hasError(int rank) {
        return !ports[rank].errors.isEmpty();
    }

    synchronized void register(int rank, long key, MemorySegment memory, boolean remoteWrite) {
        ports[rank].regions.put(key, memory);
        if (!remoteWrite) {
            ports[rank].readOnly.add(key);
        }
    }

    synchronized void deregister(int rank, long key) {
        ports[rank].regions.remove(key);
        ports[rank].readOnly.remove(key);
    }
}
