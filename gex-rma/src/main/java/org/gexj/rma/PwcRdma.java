package org.gexj.rma;

import org.gexj.BufferDescriptor;
import org.gexj.Client;
import org.gexj.GexException;
import org.gexj.GexTimeoutException;
import org.gexj.am.internal.RemoteWriteSink;
import org.gexj.internal.CoreAccess;
import org.gexj.rma.wire.PwcTagCodec;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.RegisteredRmaTransport;
import org.gexj.spi.RmaTransport;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The data of puts and gets with completion that the conduit's RDMA moves (ofi, ibv), as Photon moves it; the
 * completions stay {@link PwcEngine}'s messages.
 * <ul>
 *   <li><b>Puts</b> too large to travel packed in their header: the header goes without data, and the data as writes
 *       into the segment (or into a registration by its key) that each carry an immediate, a {@link PwcTagCodec} tag
 *       naming the initiator and its operation slot. The target counts each write, which the NIC reports only once
 *       its bytes are in place, against the header in its {@link CompletionLedger}, in either order (Photon's 2-put
 *       PWC). A write the NIC refuses (a registration closed since: the initiator's misuse) fails the operation at the
 *       initiator, and its slot is never used again, since the target's ledger still waits for that write.</li>
 *   <li><b>Gets</b> larger than one AM reply: the initiator reads the data (RDMA read) into its destination, one
 *       operation instead of a request and reply per chunk. Once it is read, the producer is sent its remote
 *       completion (a header that moves nothing) by the calling thread, which waits for the read in the call: a
 *       completion callback runs inside a poll, where a send that must wait for room cannot. A get without a remote
 *       completion returns at once. Gets from this rank itself stay AM's.</li>
 * </ul>
 * Puts need immediates ({@code Capabilities.immediateBits()}) and operation slots that fit the tag; registrations need
 * keys ({@link BufferDescriptor#keyed}), and read-only ones travel over AM, where their owner refuses a put. The
 * rest travels over AM. Counters {@code pwc.rdma.writes} and {@code pwc.rdma.reads}: operations that went this way;
 * {@code pwc.rdma.dropped}: remote writes whose tag is no put with completion's, and completions of nothing in flight.
 */
final class PwcRdma implements ConduitListener, RemoteWriteSink {
    private static final CoreAccess CORE = CoreAccess.get();
    private static final long OWNER = (long) CoreAccess.OWNER_PWC << CoreAccess.OWNER_SHIFT;
    /** An answer's status for a data write or read that failed; its operation's failure says why. */
    static final int FAILED = -1;

    private final Client client;
    private final PwcEngine engine;
    private final PwcOperation[] operations;
    private final RmaTransport transport;
    /** The transport's forms by key, or null. */
    private final RegisteredRmaTransport byKey;
    /** Null where puts take no immediates (none, or too many ranks for a tag). */
    private final PwcTagCodec codec;
    private final long chunk;
    private final long timeoutNs;
    /** Writes and reads of each operation slot the conduit has not completed yet. */
    private final AtomicIntegerArray inFlight;
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();
    /** Remote writes with a tag that is no put with completion's, and completions of nothing in flight. */
    private final AtomicLong dropped = new AtomicLong();

    /**
     * @param chunk the largest write with an immediate (the conduit's largest Long)
     */
    PwcRdma(Client client, PwcEngine engine, PwcOperation[] operations, RmaTransport transport, long chunk,
            long timeoutNs) {
        this.client = client;
        this.engine = engine;
        this.operations = operations;
        this.transport = transport;
        this.byKey = transport instanceof RegisteredRmaTransport keyed ? keyed : null;
        final int bits = client.capabilities().immediateBits();
        final PwcTagCodec tags = bits == 0 ? null : new PwcTagCodec(bits, client.size());
        this.codec = tags != null && tags.fitsSlots(operations.length) ? tags : null;
        this.chunk = chunk;
        this.timeoutNs = timeoutNs;
        this.inFlight = new AtomicIntegerArray(operations.length);
        CORE.setRmaSink(client, CoreAccess.OWNER_PWC, this);
        CORE.addStats(client, () -> java.util.Map.of("pwc.rdma.writes", writes.get(), "pwc.rdma.reads", reads.get(),
            "pwc.rdma.dropped", dropped.get()));
    }

    /** Whether a put's data to {@code dst} (null: the segment) goes as writes with immediates. */
    boolean writes(BufferDescriptor dst) {
        return codec != null && (dst == null || byKey != null && dst.keyed() && !dst.readOnly());
    }

    /** Whether a get from {@code peer}'s {@code src} (null: the segment) may be an RDMA read. */
    boolean reads(int peer, BufferDescriptor src) {
        return peer != client.rank() && (src == null || byKey != null && src.keyed());
    }

    /** The number of writes {@link #write} makes of {@code nbytes}. */
    int writesOf(long nbytes) {
        return (int) ((nbytes + chunk - 1) / chunk);
    }

    /**
     * Writes {@code nbytes} of {@code src} to {@code op}'s target at {@code at} (in the segment, or in {@code dst}'s
     * registration), each write answering {@code op} once the NIC has delivered it.
     */
    void write(PwcOperation op, BufferDescriptor dst, long at, MemorySegment src, long srcOffset,
               long nbytes) {
        writes.incrementAndGet();
        final long tag = codec.encode(op.id, client.rank());
        for (long done = 0; done < nbytes; done += chunk) {
            issue(true, op, dst, at + done, src, srcOffset + done, Math.min(chunk, nbytes - done), tag);
        }
    }

    /** Reads {@code op}'s data from its source (the segment, or {@code src}'s registration) into its destination. */
    void read(PwcOperation op, BufferDescriptor src) {
        reads.incrementAndGet();
        op.read = false;
        issue(false, op, src, op.remoteOffset, op.dst, op.dstOffset, op.nbytes, 0);
    }

    /**
     * Waits, polling, for {@code op}'s read, for at most the back-pressure timeout.
     *
     * @return true if it read, false if it failed (answered with the failure)
     */
    boolean awaitRead(PwcOperation op) {
        final long start = System.nanoTime();
        CORE.resetBackoff(client);
        while (!op.read) {
            if (op.failure != null) {
                return false;
            }
            if (System.nanoTime() - start > timeoutNs) {
                throw new GexTimeoutException("rank " + client.rank() + ": a get with completion from rank " + op.peer
                    + " was not read within " + timeoutNs / 1_000_000_000L + " s (GEX_BACKPRESSURE_TIMEOUT)");
            }
            CORE.progressWhileBlocked(client);
        }
        return true;
    }

    /** Hands one write or read to the conduit, polling while it has no room, for at most the back-pressure timeout. */
    private void issue(boolean write, PwcOperation op, BufferDescriptor d, long remote,
                       MemorySegment local, long localOffset, long nbytes, long tag) {
        final long operation = OWNER | op.id;
        final long start = System.nanoTime();
        inFlight.incrementAndGet(op.id);
        try {
            submit(write, op, d, remote, local, localOffset, nbytes, tag, operation, start);
        } catch (RuntimeException | Error e) {
            inFlight.decrementAndGet(op.id); // nothing started
            throw e;
        }
    }

    private void submit(boolean write, PwcOperation op, BufferDescriptor d, long remote, MemorySegment local,
                        long localOffset, long nbytes, long tag, long operation, long start) {
        while (true) {
            final int code;
            if (write) {
                code = d == null ? transport.putWithImmediate(op.peer, remote, local, localOffset, nbytes, tag,
                    operation)
                    : byKey.putRegisteredWithImmediate(op.peer, d.address(), d.key(), remote, local, localOffset,
                        nbytes, tag, operation);
            } else {
                code = d == null ? transport.get(local, localOffset, op.peer, remote, nbytes, operation)
                    : byKey.getRegistered(local, localOffset, op.peer, d.address(), d.key(), remote, nbytes,
                        operation);
            }
            if (code != Conduit.NO_ROOM) {
                return;
            }
            if (System.nanoTime() - start > timeoutNs) {
                throw new GexTimeoutException("rank " + client.rank() + ": the conduit would not take the data of a "
                    + (write ? "put with completion to" : "get with completion from") + " rank " + op.peer + " for "
                    + timeoutNs / 1_000_000_000L + " s (GEX_BACKPRESSURE_TIMEOUT)");
            }
            CORE.progressWhileBlocked(client);
        }
    }

    /** A write or read completed (the polling thread). */
    @Override
    public void onRmaCompletion(long operation, int status) {
        final long slot = operation & ~OWNER;
        if (slot < 0 || slot >= operations.length || inFlight.getAndUpdate((int) slot, n -> n > 0 ? n - 1 : n) == 0) {
            drop("a completion of RMA operation 0x" + Long.toHexString(operation) + ", which is not in flight");
            return;
        }
        final PwcOperation op = operations[(int) slot];
        if (status != Conduit.OK) {
            if (op.put) {
                op.failedWrites++;
            }
            if (op.failure == null) {
                final String what = op.put ? "put with completion to" : "get with completion from";
                final GexException e = op.handle == AmRmaEngine.SEGMENT
                    ? new GexException("the " + what + " rank " + op.peer + "'s segment bytes [" + op.remoteOffset
                        + ", " + (op.remoteOffset + op.nbytes) + ") failed in the conduit")
                    : AmRmaEngine.refusal(op.peer, what, op.remoteOffset, op.nbytes, op.handle,
                        AmRmaEngine.NIC_REFUSED);
                e.addSuppressed(new GexException(RmaTransport.describe(status)));
                op.failure = e;
            }
            engine.answered(op, FAILED);
            return;
        }
        if (!op.put && (op.flags & Pwc.NO_RCE) == 0) {
            op.read = true; // the calling thread sends the producer's completion, then answers
            return;
        }
        engine.answered(op, AmRmaEngine.MOVED);
    }

    /** A data write landed at this rank (the polling thread): one chunk of its operation. */
    @Override
    public void onRemoteWrite(int source, long tag) {
        if (codec == null || !codec.isPwc(tag) || codec.source(tag) >= client.size()
            || source != ConduitListener.SOURCE_UNKNOWN && codec.source(tag) != source) {
            drop("a remote write with immediate 0x" + Long.toHexString(tag) + " from "
                + (source == ConduitListener.SOURCE_UNKNOWN ? "an unknown rank" : "rank " + source)
                + ": not a put with completion's");
            return;
        }
        engine.chunkLanded(codec.source(tag), codec.slot(tag), false);
    }

    /** Counts what is dropped ({@code pwc.rdma.dropped}), and says why on stderr for the first few. */
    private void drop(String what) {
        if (dropped.incrementAndGet() <= 3) {
            System.err.println("gex: rank " + client.rank() + " dropped " + what);
        }
    }

    @Override
    public void onFrame(int channel, org.agrona.DirectBuffer buffer, int offset, int length) {
        throw new IllegalStateException("RMA completions only");
    }
}
