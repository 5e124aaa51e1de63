package org.gexj.ofi;

import org.gexj.ofi.ffm.Fabric;
import org.gexj.ofi.ffm.FiCm;
import org.gexj.ofi.ffm.FiCqEntries;
import org.gexj.ofi.ffm.FiCqErrorEntry;
import org.gexj.ofi.ffm.FiDomain;
import org.gexj.ofi.ffm.FiEndpoint;
import org.gexj.ofi.ffm.FiEq;
import org.gexj.ofi.ffm.FiMsg;
import org.gexj.ofi.ffm.FiRma;
import org.gexj.ofi.wire.OfiAddressCodec;
import org.gexj.spi.Bootstrap;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The data path of one libfabric endpoint and its completion queue: the only class of the conduit that calls
 * libfabric's data-path functions (send, inject, multi-receive, RMA, CQ reads), each behind one method that returns
 * libfabric's code ({@code 0}, {@code -FI_EAGAIN}, another negative code) and allocates nothing. Peers are named by
 * rank; their {@code fi_addr_t} are learnt once by {@link #learnAddresses}.
 *
 * <p>Threads: not thread-safe; every call is made under the {@link OfiGuard} lock (the endpoint is
 * {@code FI_THREAD_DOMAIN}).
 */
final class OfiEndpoint {
    private final OfiFabric fabric;
    private final MemorySegment ep;
    private final MemorySegment cq;
    private final MemorySegment sendFn;
    private final MemorySegment injectFn;
    private final MemorySegment recvMsgFn;
    private final MemorySegment cqReadFn;
    /** {@code fi_cq_readfrom} where the endpoint has {@code FI_SOURCE}, else null. */
    private final MemorySegment cqReadFromFn;
    private final MemorySegment writeFn;
    private final MemorySegment readFn;
    private final MemorySegment writeDataFn;
    private final long[] peerAddress;
    /** Entries of a read of none, which only drives progress. */
    private final FiCqEntries none;

    OfiEndpoint(OfiFabric fabric, int size, Arena arena) {
        this.fabric = fabric;
        this.ep = fabric.ep;
        this.cq = fabric.cq;
        // the provider may have swapped the ops tables while the endpoint was bound and enabled: read them now
        this.sendFn = FiEndpoint.sendFunction(ep);
        this.injectFn = FiEndpoint.injectFunction(ep);
        this.recvMsgFn = FiEndpoint.recvMsgFunction(ep);
        this.cqReadFn = FiEq.readFunction(cq);
        this.cqReadFromFn = fabric.sourceKnown ? FiEq.readFromFunction(cq) : null;
        this.writeFn = FiRma.writeFunction(ep);
        this.readFn = FiRma.readFunction(ep);
        this.writeDataFn = FiRma.writeDataFunction(ep);
        this.peerAddress = new long[size];
        this.none = new FiCqEntries(arena, 1);
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
                MemorySegment.copy(peer.name(), 0, name, java.lang.foreign.ValueLayout.JAVA_BYTE, 0,
                    peer.name().length);
                peerAddress[r] = FiDomain.insertAddress(fabric.av, name);
            }
        }
    }

    /** The {@code fi_addr_t} of {@code peer}. */
    long address(int peer) {
        return peerAddress[peer];
    }

    /** Whether a message of {@code length} bytes goes by {@link #inject}. */
    boolean injects(long length) {
        return length <= fabric.injectSize;
    }

    /** {@code fi_send}: completes with {@code context}. */
    long send(long buffer, long length, MemorySegment descriptor, int peer, long context) {
        return FiEndpoint.send(sendFn, ep, buffer, length, descriptor, peerAddress[peer], context);
    }

    /** {@code fi_inject}: the buffer is free on return; no completion. */
    long inject(long buffer, long length, int peer) {
        return FiEndpoint.inject(injectFn, ep, buffer, length, peerAddress[peer]);
    }

    /** {@code fi_recvmsg(FI_MULTI_RECV)}. */
    long receive(FiMsg message) {
        return FiEndpoint.recvMsg(recvMsgFn, ep, message.segment(), Fabric.FI_MULTI_RECV);
    }

    /** {@code fi_write}, or {@code fi_read} with {@code read}, of one chunk. */
    long transfer(boolean read, long local, long length, MemorySegment descriptor, int peer, long remote, long key,
                  long context) {
        return FiRma.transfer(read ? readFn : writeFn, ep, local, length, descriptor, peerAddress[peer], remote, key,
            context);
    }

    /** {@code fi_writedata} of one chunk carrying {@code data} as remote CQ data. */
    long writeData(long local, long length, MemorySegment descriptor, long data, int peer, long remote, long key,
                   long context) {
        return FiRma.writeData(writeDataFn, ep, local, length, descriptor, data, peerAddress[peer], remote, key,
            context);
    }

    /** Whether {@link #readWithSources} names each entry's source. */
    boolean namesSources() {
        return cqReadFromFn != null;
    }

    /** {@code fi_cq_readfrom} where the provider names sources, else {@code fi_cq_read}. */
    long readWithSources(FiCqEntries entries, int count) {
        return cqReadFromFn != null ? entries.readFrom(cqReadFromFn, cq, count) : entries.read(cqReadFn, cq, count);
    }

    /** {@code fi_cq_read}. */
    long read(FiCqEntries entries, int count) {
        return entries.read(cqReadFn, cq, count);
    }

    /** {@code fi_cq_read} of no entry: drives the provider's progress. */
    void progress() {
        none.read(cqReadFn, cq, 0);
    }

    /** {@code fi_cq_readerr}: 1 if an error entry was read. */
    long readError(FiCqErrorEntry entry) {
        return entry.read(cq);
    }

    /** The provider's text of an error entry read by {@link #readError}. */
    String errorText(FiCqErrorEntry entry) {
        return entry.text(cq);
    }
}
