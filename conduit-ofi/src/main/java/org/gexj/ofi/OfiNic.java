package org.gexj.ofi;

import org.gexj.internal.ffm.PollH;
import org.gexj.ofi.ffm.Fabric;
import org.gexj.ofi.ffm.FiAtomic;
import org.gexj.ofi.ffm.FiCm;
import org.gexj.ofi.ffm.FiCqEntries;
import org.gexj.ofi.ffm.FiCqErrorEntry;
import org.gexj.ofi.ffm.FiDomain;
import org.gexj.ofi.ffm.FiEndpoint;
import org.gexj.ofi.ffm.FiEq;
import org.gexj.ofi.ffm.FiErrno;
import org.gexj.ofi.ffm.FiMsg;
import org.gexj.ofi.ffm.FiRma;
import org.gexj.ofi.wire.OfiAddressCodec;
import org.gexj.rdma.RdmaCompletions;
import org.gexj.rdma.RdmaErrorEntry;
import org.gexj.rdma.RdmaNic;
import org.gexj.rdma.RdmaPeerRegistering;
import org.gexj.rdma.RdmaRegion;
import org.gexj.spi.Bootstrap;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One libfabric RDM endpoint and its completion queue as the RDMA engine's NIC: the only class of the conduit that
 * calls libfabric's data-path functions (send, inject, multi-receive, RMA, CQ reads), each behind one method that
 * returns libfabric's code ({@code 0}, {@code -FI_EAGAIN} = {@link RdmaNic#AGAIN}, another negative code) and
 * allocates nothing. Peers are named by rank; their {@code fi_addr_t} are learnt once by {@link #learnAddresses}.
 *
 * <p>Threads: not thread-safe; the engine makes every call under its lock.
 */
final class OfiNic implements RdmaPeerRegistering {
    private final OfiFabric fabric;
    private final MemorySegment ep;
    private final MemorySegment cq;
    private final MemorySegment sendFn;
    private final MemorySegment injectFn;
    private final MemorySegment recvMsgFn;
    private final MemorySegment cqReadFn;
    /** {@code fi_cq_readfrom} where the endpoint has {@code FI_SOURCE}, else null. */
    private final MemorySegment cqReadFromFn;
    private final MemorySegment writeMsgFn;
    private final MemorySegment readFn;
    private final MemorySegment writeDataFn;
    /** {@code fi_atomic}, {@code fi_fetch_atomic}, {@code fi_compare_atomic}; null where the endpoint has none. */
    private final MemorySegment atomicFn;
    private final MemorySegment fetchAtomicFn;
    private final MemorySegment compareAtomicFn;
    private final long[] peerAddress;
    /** {@code fi_trywait} and its one fid, the CQ; null where the CQ has no file descriptor. */
    private final MemorySegment trywaitFn;
    private final MemorySegment waitFids;
    /** {@code ppoll} on the CQ's file descriptor. */
    private final PollH polls;
    /** Entries of a read of none, which only drives progress. */
    private final FiCqEntries none;
    private final FiMsg message;
    private final FiRma.WriteMessage write;
    private final String description;
    /** {@link #registersForPeers}: {@code OfiSettings.peerKeys}. */
    private final boolean peerKeys;
    /** The key the next registration asks for (where the provider does not choose keys itself). */
    private long nextKey = 1;

    OfiNic(OfiFabric fabric, int size, Arena arena, boolean peerKeys) {
        this.peerKeys = peerKeys;
        this.fabric = fabric;
        this.ep = fabric.ep;
        this.cq = fabric.cq;
        // the provider may have swapped the ops tables while the endpoint was bound and enabled: read them now
        this.sendFn = FiEndpoint.sendFunction(ep);
        this.injectFn = FiEndpoint.injectFunction(ep);
        this.recvMsgFn = FiEndpoint.recvMsgFunction(ep);
        this.cqReadFn = FiEq.readFunction(cq);
        this.cqReadFromFn = fabric.sourceKnown ? FiEq.readFromFunction(cq) : null;
        this.writeMsgFn = FiRma.writeMsgFunction(ep);
        this.readFn = FiRma.readFunction(ep);
        this.writeDataFn = FiRma.writeDataFunction(ep);
        final boolean atomics = fabric.atomics && !FiAtomic.ops(ep).equals(MemorySegment.NULL);
        this.atomicFn = atomics ? FiAtomic.writeFunction(ep) : null;
        this.fetchAtomicFn = atomics ? FiAtomic.readWriteFunction(ep) : null;
        this.compareAtomicFn = atomics ? FiAtomic.compWriteFunction(ep) : null;
        this.peerAddress = new long[size];
        this.none = new FiCqEntries(arena, 1);
        this.message = new FiMsg(arena);
        this.write = new FiRma.WriteMessage(arena);
        this.description = "ofi (" + fabric.provider + ")";
        final int fd = fabric.cqWaitFd;
        if (fd < 0) {
            this.trywaitFn = null;
            this.waitFids = null;
            this.polls = null;
        } else {
            this.trywaitFn = FiEq.trywaitFunction(fabric.fabric);
            this.waitFids = arena.allocate(ValueLayout.ADDRESS);
            waitFids.set(ValueLayout.ADDRESS, 0, cq);
            this.polls = new PollH(Arena.ofAuto(), fd); // freed only once no waiting thread holds it
            prepareWait(); // links fi_trywait's downcall now: its first call allocates, a thread's first wait must not
        }
    }

    /** Collective over the job: publishes this endpoint's name and inserts every rank's into the address vector. */
    void learnAddresses(Bootstrap bootstrap, int rank) {
        final byte[][] blobs = bootstrap.allgather(OfiAddressCodec.encode(
            new OfiAddressCodec.Endpoint(fabric.provider, FiCm.getName(ep))));
        try (Arena scratch = Arena.ofConfined()) {
            for (int r = 0; r < peerAddress.length; r++) {
                final OfiAddressCodec.Endpoint peer = OfiAddressCodec.decodeEndpoint(blobs[r], r);
                if (!peer.provider().equals(fabric.provider)) {
                    throw new OfiException("rank " + r + " chose libfabric provider " + peer.provider()
                        + " and rank " + rank + " chose " + fabric.provider + ": set GEX_OFI_PROVIDER for the job");
                }
                final MemorySegment name = scratch.allocate(Math.max(1, peer.name().length));
                MemorySegment.copy(peer.name(), 0, name, ValueLayout.JAVA_BYTE, 0, peer.name().length);
                peerAddress[r] = FiDomain.insertAddress(fabric.av, name);
            }
        }
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public String conduit() {
        return "ofi";
    }

    @Override
    public long maxMessageSize() {
        return fabric.maxMessageSize;
    }

    @Override
    public boolean injects(long length) {
        return length <= fabric.injectSize;
    }

    @Override
    public long completionDataBytes() {
        return fabric.cqDataSize;
    }

    @Override
    public boolean localRegistration() {
        return fabric.requires(Fabric.FI_MR_LOCAL);
    }

    @Override
    public boolean virtualAddresses() {
        return fabric.requires(Fabric.FI_MR_VIRT_ADDR);
    }

    /** {@code FI_MULTI_RECV}: many messages land in one buffer. */
    @Override
    public boolean multiReceive() {
        return true;
    }

    @Override
    public boolean namesSources() {
        return cqReadFromFn != null;
    }

    /** The {@code fi_addr_t} of {@code peer}. */
    @Override
    public long address(int peer) {
        return peerAddress[peer];
    }

    @Override
    public RdmaRegion register(MemorySegment memory, boolean remote, boolean untilClose) {
        final MemorySegment mr = fabric.register(memory, nextKey++, untilClose);
        final Runnable release = untilClose ? () -> { } : () -> Fabric.close(mr, "memory region of one operation");
        return new RdmaRegion(FiDomain.descriptor(mr).address(), FiDomain.key(mr), release);
    }

    /**
     * {@code GEX_OFI_PEER_KEYS}: by default only on providers that fail a refused access alone
     * ({@link OfiSettings#REFUSING_PROVIDERS}). Keys are asked for, never reused, where the provider lets us choose.
     */
    @Override
    public boolean registersForPeers() {
        return peerKeys;
    }

    @Override
    public RdmaRegion registerForPeers(MemorySegment memory, boolean writable) {
        final long access = Fabric.FI_READ | Fabric.FI_WRITE | Fabric.FI_REMOTE_READ
            | (writable ? Fabric.FI_REMOTE_WRITE : 0);
        final MemorySegment mr = fabric.register(memory, access, nextKey++, false);
        return new RdmaRegion(FiDomain.descriptor(mr).address(), FiDomain.key(mr),
            () -> Fabric.close(mr, "memory region of a registration"));
    }

    /** {@code fi_send}: completes with {@code context}. */
    @Override
    public long send(long buffer, long length, long descriptor, int peer, long context) {
        return FiEndpoint.send(sendFn, ep, buffer, length, descriptor, peerAddress[peer], context);
    }

    /** {@code fi_inject}: the buffer is free on return; no completion. */
    @Override
    public long inject(long buffer, long length, int peer) {
        return FiEndpoint.inject(injectFn, ep, buffer, length, peerAddress[peer]);
    }

    /** {@code fi_recvmsg(FI_MULTI_RECV)}: many messages land in the buffer; the last entry releases it. */
    @Override
    public long postReceive(long buffer, long length, long descriptor, long context) {
        return FiEndpoint.recvMsg(recvMsgFn, ep, message.set(buffer, length, descriptor, context).segment(),
            Fabric.FI_MULTI_RECV);
    }

    /**
     * {@code fi_read}, or {@code fi_writemsg} with {@code FI_DELIVERY_COMPLETE}, of one chunk: a write's completion is
     * the put's remote completion, so it must mean the bytes are in the target's memory (GASNet's ofi-conduit asks the
     * same of its RMA endpoint).
     */
    @Override
    public long transfer(boolean read, long local, long length, long descriptor, int peer, long remote, long key,
                         long context) {
        if (read) {
            return FiRma.transfer(readFn, ep, local, length, descriptor, peerAddress[peer], remote, key, context);
        }
        return FiRma.writeMsg(writeMsgFn, ep, write.set(local, length, descriptor, peerAddress[peer], remote, key,
            context), Fabric.FI_DELIVERY_COMPLETE | Fabric.FI_COMPLETION);
    }

    /** {@code fi_writedata} of one chunk carrying {@code data} as remote CQ data. */
    @Override
    public long writeData(long local, long length, long descriptor, long data, int peer, long remote, long key,
                          long context) {
        return FiRma.writeData(writeDataFn, ep, local, length, descriptor, data, peerAddress[peer], remote, key,
            context);
    }

    /**
     * Only cxi's atomics are the NIC's own among the providers the conduit knows: ofi_rxm, ofi_rxd, shm, sockets and
     * the others emulate them with messages that the target's progress applies.
     */
    @Override
    public boolean atomicsPreferred() {
        return atomicFn != null && "cxi".equals(fabric.provider);
    }

    /** {@code fi_query_atomic} on the domain, where the endpoint has {@code FI_ATOMIC}. */
    @Override
    public boolean atomicValid(int datatype, int op, int kind) {
        if (atomicFn == null) {
            return false;
        }
        return FiAtomic.query(fabric.domain, datatype, op, kind == ATOMIC_COMPARE ? FiAtomic.FI_COMPARE_ATOMIC
            : kind == ATOMIC_FETCH ? FiAtomic.FI_FETCH_ATOMIC : 0);
    }

    /** {@code fi_atomic}, {@code fi_fetch_atomic} or {@code fi_compare_atomic} of one value, from the staging. */
    @Override
    public long atomic(int kind, int datatype, int op, long operand, long compare, long staging, long descriptor,
                       int peer, long remote, long key, long context) {
        return switch (kind) {
            case ATOMIC_WRITE -> FiAtomic.write(atomicFn, ep, staging, descriptor, peerAddress[peer], remote, key,
                datatype, op, context);
            case ATOMIC_FETCH -> FiAtomic.readWrite(fetchAtomicFn, ep, staging, descriptor, staging + 16, descriptor,
                peerAddress[peer], remote, key, datatype, op, context);
            default -> FiAtomic.compWrite(compareAtomicFn, ep, staging, descriptor, staging + 8, descriptor,
                staging + 16, descriptor, peerAddress[peer], remote, key, datatype, op, context);
        };
    }

    @Override
    public RdmaCompletions completions(Arena arena, int capacity) {
        return new FiCqEntries(arena, capacity);
    }

    /** {@code fi_cq_readfrom} where the provider names sources, else {@code fi_cq_read}. */
    @Override
    public long read(RdmaCompletions entries, int count) {
        final FiCqEntries e = (FiCqEntries) entries;
        return cqReadFromFn != null ? e.readFrom(cqReadFromFn, cq, count) : e.read(cqReadFn, cq, count);
    }

    /**
     * False where the CQ has a file descriptor: a poll of {@code tcp;ofi_rxm} enters the kernel ({@code epoll_wait}),
     * and the descriptor wakes a waiting thread at the next packet. A rank that serves a peer's puts and gets finds
     * nothing in its CQ, so its back-off yielded between polls for all of testsmall's floods: with the yields, its
     * NB and NBI flood rows took 0.98 of GASNet's time (median of 36 rows, 4 alternated rounds), without, 0.90.
     */
    @Override
    public boolean yieldsWhileWaiting() {
        return trywaitFn == null;
    }

    /** {@code fi_trywait} on the CQ, where it has a file descriptor. */
    @Override
    public int prepareWait() {
        if (trywaitFn == null) {
            return WAIT_UNSUPPORTED;
        }
        final int rc = FiEq.trywait(trywaitFn, fabric.fabric, waitFids, 1);
        return rc == 0 ? WAIT_READY : rc == AGAIN ? WAIT_BUSY : WAIT_UNSUPPORTED;
    }

    /** {@code ppoll} on the CQ's file descriptor. */
    @Override
    public boolean awaitActivity(long nanos) {
        return polls.awaitInput(nanos);
    }

    /** {@code fi_cq_read} of no entry: drives the provider's progress. */
    @Override
    public void progress() {
        none.read(cqReadFn, cq, 0);
    }

    @Override
    public RdmaErrorEntry errorEntry(Arena arena) {
        return new ErrorEntry(new FiCqErrorEntry(arena), cq);
    }

    /** {@code fi_cq_readerr}: 1 if an error entry was read. */
    @Override
    public long readError(RdmaErrorEntry entry) {
        return ((ErrorEntry) entry).entry.read(cq);
    }

    /** An {@code fi_cq_err_entry} of this endpoint's completion queue, whose text the queue gives. */
    private record ErrorEntry(FiCqErrorEntry entry, MemorySegment cq) implements RdmaErrorEntry {
        @Override
        public long context() {
            return entry.context();
        }

        @Override
        public String text() {
            return entry.text(cq);
        }
    }

    @Override
    public String strerror(long code) {
        return FiErrno.strerror((int) -code);
    }

    @Override
    public RuntimeException failure(String call, long code) {
        return code == ERROR_AVAILABLE ? new OfiException(call) : new OfiException(call, (int) code, strerror(code));
    }
}
