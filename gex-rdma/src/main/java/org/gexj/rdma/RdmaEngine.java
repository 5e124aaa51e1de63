package org.gexj.rdma;

import org.gexj.PeerFailedException;
import org.gexj.rdma.wire.RdmaHeaderFlyweight;
import org.gexj.rdma.wire.RdmaSegmentCodec;
import org.gexj.spi.AttachedSegments;
import org.gexj.spi.Bootstrap;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.JobHealth;
import org.gexj.spi.RegisteredAccess;
import org.gexj.spi.RmaTransport;
import org.gexj.spi.SegmentDescriptor;
import org.gexj.spi.SegmentRules;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * The transport-neutral core of a conduit over an RDMA-capable NIC ({@link RdmaNic}): AM frames with credit flow
 * control, RMA in chunks, the close's handshake, and the poll loop that dispatches completions. A conduit (ofi, ibv)
 * opens its NIC, builds this engine over it and delegates the conduit SPI's data path to it. The parts:
 * <ul>
 *   <li>{@link RdmaSendPath}: AM frames out, the credits and the backlog of frames the endpoint refused for now;</li>
 *   <li>{@link RdmaReceivePath}: the receive buffers, delivery and deferral ({@link RdmaDeferred}) of frames and
 *       remote writes;</li>
 *   <li>{@link RdmaRmaEngine}: RMA in chunks ({@link RdmaOperations}), resumed when the endpoint was busy, heap memory
 *       staged through bounce buffers;</li>
 *   <li>{@link RdmaCloseHandshake}: the CLOSE exchange and completion-queue drain of the close;</li>
 *   <li>{@link RdmaLiveness}: peer timeouts and failures; {@link RdmaRegistrations}: the segment's registration;</li>
 *   <li>{@link RdmaContexts}: the operation contexts a completion names; {@link RdmaGuard}: the lock and the close's
 *       state.</li>
 * </ul>
 *
 * <p><b>Progress</b> is manual, driven by {@link #poll}: it delivers deferred items, then completion-queue entries,
 * which it dispatches by their context to the part that posted the operation. A frame refused for the timeout while
 * this rank polls on, or a send that completes in error, fails the job naming the peer.
 *
 * <p><b>Threads</b> (any thread may call, as the SPI requires): one lock ({@link RdmaGuard}) serialises the NIC and
 * guards the parts' shared state; any thread may claim, commit, abort and start RMA. {@link #poll} is called by one
 * thread at a time (the core's poll lock), which alone uses the completion entries read ahead
 * ({@link RdmaPollBatch}) and the deferred frames and remote writes. The lock is never held while a listener runs, so
 * handlers may send. The few fields a poll reads without the lock to skip work are volatile, written under it. This
 * is written down here once, for both conduits; the NIC needs no thread safety of its own.
 *
 * <p><b>Close</b> may run while other threads still call in: from its start every section that calls the NIC checks
 * for it under the lock and throws {@link IllegalStateException}, the close alone drains (its RMA operations, then
 * CLOSE to every peer) and closes the NIC under the lock, and the memory a running poll reads is freed when that poll
 * ends.
 */
public final class RdmaEngine {
    public static final long PAGE = SegmentRules.PAGE_SIZE;
    /** Bytes of one bounce buffer: the chunk in which an RMA operation on heap memory moves. */
    public static final int BOUNCE_BYTES = RdmaRmaEngine.BOUNCE_BYTES;
    /** How long an error the NIC attributes to no operation waits for the job to name a failed peer. */
    private static final long ATTRIBUTE_NS = 2_000_000_000L;

    private final RdmaNic nic;
    private final AutoCloseable nicClose;
    private final int rank;
    private final int size;
    private final JobHealth health;
    private final Bootstrap bootstrap;
    private final RdmaSettings settings;
    private final RdmaGuard guard;
    private final Arena arena;
    /** Set by gexrun: a failed job ends this process, which releases the endpoint then. */
    private final boolean processEndsOnFailure;
    private final int immediateBits;
    private final int receiveSlots;
    private final long receiveBufferBytes;
    private final RdmaContexts contexts;
    private final RdmaLiveness liveness;
    private final RdmaRegistrations registrations;
    private final RdmaSendPath send;
    private final RdmaReceivePath receive;
    private final RdmaRmaEngine rmaEngine;
    private final RdmaRmaTransport rma;
    /** Registrations for peers' RMA by key, where the NIC offers it ({@link RdmaPeerRegistering}), or null. */
    private final RdmaPeerRegistrations peerRegistrations;
    private final RdmaCloseHandshake handshake;
    private final RdmaPollBatch batch;
    private final RdmaErrorEntry errorEntry;
    /** The NIC is closed; the memory, which a running poll may still read, is freed then or later. */
    private boolean nicClosed;
    private boolean memoryFreed;

    /**
     * Builds the engine over an open NIC whose peers' addresses are known, and posts its receive buffers. On failure
     * closes the NIC and frees {@code arena}.
     *
     * @param nicClose           closes every native object of the NIC (the engine's close calls it last)
     * @param arena              where the engine and the NIC allocate; the engine frees it after closing the NIC
     * @param completionDataBytes bytes of the NIC's remote completion data the engine may use: 0, 4 or 8
     * @param exitOnFailure      the process ends when the job fails (gexrun's {@code GEX_EXIT_ON_FAILURE})
     */
    public RdmaEngine(RdmaNic nic, AutoCloseable nicClose, Arena arena, RdmaSettings settings, int rank, int size,
                      JobHealth health, Bootstrap bootstrap, long completionDataBytes, boolean exitOnFailure) {
        this.nic = nic;
        this.nicClose = nicClose;
        this.arena = arena;
        this.settings = settings;
        this.rank = rank;
        this.size = size;
        this.health = health;
        this.bootstrap = bootstrap;
        this.processEndsOnFailure = exitOnFailure;
        this.guard = new RdmaGuard(nic.conduit(), rank);
        boolean built = false;
        try {
            final boolean multi = nic.multiReceive();
            final int slotBytes = RdmaSizing.slotBytes(settings);
            final int windowUnits = RdmaSizing.windowUnits(settings, multi);
            final long outstanding = RdmaSizing.outstandingBytes(settings, size, multi);
            this.receiveBufferBytes = RdmaSizing.receiveBufferBytes(settings, size, multi);
            this.receiveSlots = RdmaSizing.receiveBuffers(settings, size, multi);
            if (receiveBufferBytes * receiveSlots > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(settings.creditSetting() + " for " + size + " ranks needs "
                    + receiveSlots + " receive buffers of " + receiveBufferBytes + " bytes, more than "
                    + Integer.MAX_VALUE + " bytes: lower it");
            }
            final int sendSlots = settings.sendBuffers();
            final boolean immediateInData = completionDataBytes >= Long.BYTES;
            this.immediateBits = completionDataBytes >= Integer.BYTES ? 32 : 0;
            this.contexts = new RdmaContexts(arena, sendSlots, receiveSlots, settings.rmaOperations());
            this.liveness = new RdmaLiveness(guard, health, rank, size, settings.timeoutNanos(), nic.description(),
                settings.timeoutSetting());
            this.registrations = new RdmaRegistrations(nic);
            // the registrations of the send, receive and bounce memory are made in this order
            this.send = new RdmaSendPath(guard, nic, contexts, liveness, arena, rank, size, settings, sendSlots,
                slotBytes, windowUnits);
            final RdmaDeferred deferred = new RdmaDeferred((int) Math.min(Integer.MAX_VALUE / 2, outstanding));
            // per connection: a block per rank, the first (this rank's own share) now, the others as peers connect
            final boolean perConnection = !multi && size > 1 && nic.receivesPerConnection(this::peerConnecting);
            final int blockBuffers = perConnection ? (receiveSlots + size - 1) / size : receiveSlots;
            this.receive = new RdmaReceivePath(guard, nic, contexts, send, liveness, deferred, health, arena, rank,
                size, settings.timeoutNanos(), immediateInData, receiveSlots, blockBuffers, receiveBufferBytes,
                slotBytes);
            this.rmaEngine = new RdmaRmaEngine(guard, nic, contexts, registrations, deferred, liveness, arena, rank,
                size, settings.rmaOperations(), immediateInData, settings.registrationCacheBytes());
            this.rma = new RdmaRmaTransport(rmaEngine);
            this.peerRegistrations = nic instanceof RdmaPeerRegistering keys && keys.registersForPeers()
                ? new RdmaPeerRegistrations(guard, keys) : null;
            this.batch = new RdmaPollBatch(nic, arena);
            this.errorEntry = nic.errorEntry(arena);
            this.handshake = new RdmaCloseHandshake(guard, nic, contexts, send, receive, rmaEngine, batch, errorEntry,
                health, arena, rank, size, settings.timeoutNanos());
            receive.postBlocks(1);
            built = true;
        } finally {
            if (!built) {
                closeQuietly();
                arena.close();
            }
        }
    }

    /** The NIC starts connecting a peer (under the lock): that peer's share of receive buffers is posted. */
    private void peerConnecting() {
        receive.addBlock();
    }

    /** The bits of immediate data a put-with-immediate carries to the target: 32, or 0 where the NIC has none. */
    public int immediateBits() {
        return immediateBits;
    }

    private void checkTarget(int target) {
        if (target < 0 || target >= size) {
            throw new IllegalArgumentException("target rank " + target + " outside [0, " + size + ")");
        }
    }

    // ------------------------------------------------------------------------------------------------- AM frames

    /** As {@link Conduit#claim}: {@link Conduit#NO_ROOM} when no send buffer or credit is free, or a backlog. */
    public int claim(Claim claim, int target, int channel, int length) {
        guard.ensureOpen();
        checkTarget(target);
        if (channel != Conduit.REQUEST && channel != Conduit.REPLY) {
            throw new IllegalArgumentException("channel " + channel + " is neither REQUEST (0) nor REPLY (1)");
        }
        if (length < 0 || length > settings.frameLength()) {
            throw new IllegalArgumentException("frame length " + length + " outside [0, " + settings.frameLength()
                + "] (maxFrameLength, " + settings.frameSetting() + ")");
        }
        return send.claim(claim, target, channel, length);
    }

    public void commit(Claim claim) {
        send.commit(claim);
    }

    public void abort(Claim claim) {
        send.abort(claim);
    }

    // ------------------------------------------------------------------------------------------------- progress

    /**
     * Delivers deferred items the mask now allows, then completion-queue entries: frames and remote writes of the
     * polled channels, completions of this rank's RMA operations and sends. Items of a channel not polled are
     * deferred. Sends a credit message to every peer owed enough credits.
     */
    public int poll(ConduitListener listener, int channelMask, int limit) {
        // counted before the check: a close that this poll does not see defers freeing the memory it reads
        guard.pollStarted();
        try {
            guard.ensureOpen();
            if (send.mayHaveBacklog()) {
                guard.lockOpen();
                try {
                    send.sendBacklog();
                } finally {
                    guard.unlock();
                }
            }
            int delivered = receive.deliverDeferred(listener, channelMask, limit);
            boolean read = false;
            while (delivered < limit) {
                if (batch.exhausted()) {
                    if (read || !fill()) {
                        break;
                    }
                    read = true;
                }
                delivered += process(batch.next(), listener, channelMask);
            }
            send.returnCredits(false);
            if (liveness.watch(send, rmaEngine)) {
                send.returnCredits(true);
            }
            rmaEngine.resume();
            return delivered;
        } finally {
            if (guard.pollEnded() == 0 && guard.closed()) {
                freeMemoryAfterPoll();
            }
        }
    }

    /**
     * {@link Conduit#awaitActivity}: blocks on the NIC's wait object when it has one and nothing is pending (asked
     * under the lock, waited on without it, so a sender is never held up), else parks. A lock another thread holds is
     * not waited for (a queued waiter allocates): the wait is a park then.
     */
    public boolean awaitActivity(long nanos) {
        if (guard.closing() || !guard.tryLock()) {
            LockSupport.parkNanos(nanos);
            return false;
        }
        final int state;
        try {
            if (guard.closing()) {
                state = RdmaNic.WAIT_UNSUPPORTED;
            } else {
                send.returnOwed(true);
                state = nic.prepareWait();
            }
        } finally {
            guard.unlock();
        }
        return switch (state) {
            case RdmaNic.WAIT_READY -> nic.awaitActivity(nanos);
            case RdmaNic.WAIT_BUSY -> true;
            default -> {
                LockSupport.parkNanos(nanos);
                yield false;
            }
        };
    }

    /** {@link org.gexj.spi.Conduit#yieldsWhileWaiting}: the NIC's. */
    public boolean yieldsWhileWaiting() {
        return nic.yieldsWhileWaiting();
    }

    /** Reads a batch of completions into the entry array. @return false if none */
    private boolean fill() {
        final String unattributed;
        guard.lockOpen();
        try {
            final long n = nic.read(batch.entries(), RdmaPollBatch.CAPACITY);
            if (n > 0) {
                batch.filled((int) n);
                return true;
            }
            if (n == RdmaNic.ERROR_AVAILABLE) {
                unattributed = readError();
                if (unattributed == null) {
                    return false;
                }
            } else {
                if (n != RdmaNic.AGAIN && n != 0) {
                    throw nic.failure("reading the completion queue", n);
                }
                return false;
            }
        } finally {
            guard.unlock();
        }
        throw unattributedError(unattributed);
    }

    /**
     * An error the NIC reports for no operation of this rank. libfabric's shm reports a peer that died in the middle
     * of a transfer so (no context, EIO), naming nobody; the launcher names the dead rank within milliseconds of its
     * death, so the job's health is given {@link #ATTRIBUTE_NS} to say who it was (without the lock), and its
     * {@link PeerFailedException} is thrown instead when it does.
     */
    private RuntimeException unattributedError(String text) {
        final long deadline = System.nanoTime() + ATTRIBUTE_NS;
        while (!health.failed() && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        health.check();
        return nic.failure("completion queue error of no operation of rank " + rank + " (" + nic.description()
            + "), and no peer known to have failed within " + ATTRIBUTE_NS / 1_000_000 + " ms: " + text,
            RdmaNic.ERROR_AVAILABLE);
    }

    /**
     * Dispatches completion entry {@code entry} to the part whose operation it names.
     *
     * @return 1 if a frame, remote write or RMA completion was delivered, else 0
     */
    private int process(int entry, ConduitListener listener, int mask) {
        final RdmaCompletions entries = batch.entries();
        if (entries.remoteData(entry)) {
            return receive.remoteWrite(entries, entry, listener, mask);
        }
        final int index = contexts.decode(entries.context(entry));
        if (index < 0) {
            return 0; // no operation of ours (a provider's own event)
        }
        if (contexts.isReceive(index)) {
            final long source = nic.namesSources() ? entries.source(entry) : RdmaNic.UNKNOWN_SOURCE;
            return receive.message(contexts.receiveBufferOf(index), entries, entry, source, listener, mask);
        }
        if (contexts.isSend(index)) {
            send.completed(index);
            return 0;
        }
        return rmaEngine.completed(contexts.operationOf(index), listener, mask);
    }

    /**
     * Reads the completion queue's error entry and acts on it (under the lock).
     *
     * @return null, or the error's text if it belongs to no operation of this rank ({@link #unattributedError})
     */
    private String readError() {
        if (nic.readError(errorEntry) != 1) {
            return null;
        }
        final String text = errorEntry.text();
        final int index = contexts.decode(errorEntry.context());
        if (index < 0) {
            final int peer = errorEntry.peer();
            if (peer >= 0 && peer < size) {
                // an inject (no context) to a known peer: the send path's failure, named as such
                liveness.fail(peer, "an inject to rank " + peer + " failed over " + nic.description() + ": " + text);
            }
            return text;
        }
        if (contexts.isSend(index)) {
            send.failed(index, text);
        }
        if (contexts.isReceive(index)) {
            if (!guard.closed()) {
                throw nic.failure("a receive buffer of rank " + rank + " failed: " + text, RdmaNic.ERROR_AVAILABLE);
            }
            return null;
        }
        rmaEngine.chunkFailed(contexts.operationOf(index));
        return null;
    }

    // ------------------------------------------------------------------------------------------------- RMA

    public RmaTransport rma() {
        return rma;
    }

    /**
     * {@link org.gexj.spi.Conduit#registeredAccess}: where the NIC registers memory for peers, registrations are
     * registered with it and reached by RDMA with their keys; otherwise null (registered memory is reached over AM).
     */
    public RegisteredAccess registeredAccess() {
        return peerRegistrations;
    }

    // ------------------------------------------------------------------------------------------------- segments

    /**
     * Collective: allocates this rank's segment (page aligned, zeroed), registers it for remote access and exchanges
     * (address, size, key) with every rank in one allgather.
     */
    public AttachedSegments attachSegment(long bytes) {
        guard.ensureOpen();
        SegmentRules.checkAttach(nic.conduit(), rank, registrations.segment(), bytes);
        final MemorySegment mine = arena.allocate(bytes, PAGE);
        final RdmaRegion region;
        guard.lockOpen();
        try {
            region = nic.register(mine, true, true);
        } finally {
            guard.unlock();
        }
        final byte[][] blobs = bootstrap.allgather(RdmaSegmentCodec.encode(
            new RdmaSegmentCodec.Segment(mine.address(), bytes, region.key())));
        final SegmentDescriptor[] descriptors = new SegmentDescriptor[size];
        final long[] base = new long[size];
        final long[] sizes = new long[size];
        final long[] keys = new long[size];
        for (int r = 0; r < size; r++) {
            final RdmaSegmentCodec.Segment s = RdmaSegmentCodec.decode(blobs[r], r);
            base[r] = s.base();
            sizes[r] = s.size();
            keys[r] = s.key();
            descriptors[r] = new SegmentDescriptor(s.base(), s.size(),
                java.nio.ByteBuffer.allocate(Long.BYTES).putLong(s.key()).array());
        }
        rmaEngine.segments(base, sizes, keys);
        registrations.segment(mine, region);
        return new AttachedSegments(mine, descriptors);
    }

    // ------------------------------------------------------------------------------------------------- close

    /**
     * Closes the NIC, then frees the memory. Idempotent. Unless the job failed, first exchanges CLOSE messages with
     * every peer while driving progress ({@link RdmaCloseHandshake}).
     */
    public void close() {
        guard.startClosing();
        if (!guard.closed() && !health.failed()) {
            try {
                handshake.drain();
            } catch (RuntimeException e) {
                System.err.println("gex: " + nic.conduit() + " rank " + rank + " closing without its peers' CLOSE: "
                    + e);
            }
        } else if (!guard.closed()) {
            handshake.settle();
        }
        guard.lock();
        try {
            if (guard.closed()) {
                return;
            }
            guard.markClosed();
            if (health.failed() && processEndsOnFailure) {
                // verbs;ofi_rxm crashed (SIGSEGV) in fi_close of an endpoint that peers still sent to after a rank's
                // exit or abort; the process ends next, and the kernel releases the endpoint with it
                return;
            }
            final int sends = send.inFlight();
            if (sends > 0 || rmaEngine.inUse() > 0) {
                // verbs;ofi_rxm crashed (SIGSEGV) in fi_close of an endpoint with sends in flight, and the provider may
                // still write into posted buffers: the endpoint and its memory are left to the end of the process
                System.err.println("gex: " + nic.conduit() + " rank " + rank + " leaves its endpoint open: " + sends
                    + " send(s) and " + rmaEngine.inUse() + " RMA operation(s) still in flight");
                return;
            }
            nicClosed = true;
            try {
                rmaEngine.closeRegistrations(); // a domain with registrations open refuses to close
                if (peerRegistrations != null) {
                    peerRegistrations.closeAll();
                }
                closeNic();
            } finally {
                // a poll that began before the close may still read the receive buffers and completion entries (and
                // a handler the frame it runs for): their memory is freed when the last poll ends
                if (guard.polling() == 0) {
                    freeMemory();
                }
            }
        } finally {
            guard.unlock();
        }
    }

    private void closeNic() {
        try {
            nicClose.close();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void closeQuietly() {
        try {
            nicClose.close();
        } catch (Exception ignored) {
            // the construction's own failure is the one reported
        }
    }

    /** The end of the outermost poll of a closed conduit: frees the memory a close left to it. */
    private void freeMemoryAfterPoll() {
        guard.lock();
        try {
            if (nicClosed && guard.polling() == 0) {
                freeMemory();
            }
        } finally {
            guard.unlock();
        }
    }

    /** Frees the engine's native memory once, after the NIC is closed (under the lock). */
    private void freeMemory() {
        if (!memoryFreed) {
            memoryFreed = true;
            arena.close();
        }
    }

    // ------------------------------------------------------------------------------------------------- reports

    /** The engine's sizes, for the conduit's start-up line. */
    public String describe() {
        // a window counts bytes where messages share buffers, else messages
        final String window = nic.multiReceive() ? send.windowUnits() * RdmaHeaderFlyweight.CREDIT_UNIT + " B"
            : send.windowUnits() + " messages";
        return "frame " + settings.frameLength() + " B, credits " + window + " per peer and channel, receive buffers "
            + receiveSlots + " x " + receiveBufferBytes + " B" + receive.describePosting() + ", immediate "
            + immediateBits + " bits";
    }

    /**
     * {@code <conduit>.staged.operations}: RMA operations (puts, gets, AM Long payloads) on heap memory, staged
     * through the bounce buffers; {@code .staged.bytes}: the bytes they moved. {@code .registration.cache.hits},
     * {@code .misses}, {@code .releases} and {@code .bytes}: operations on local memory outside the segment that found
     * a cached registration, that made one, registrations released, and bytes held now (where the NIC needs local
     * registration; {@link RdmaRegistrationCache}). {@code .registered.operations}: puts and gets started on peers'
     * registered memory by key; {@code .atomics}: remote atomics the NIC performed for this rank
     * ({@link RdmaAtomics}); {@code .registered.open}: this rank's registrations open for peers' RMA
     * ({@link RdmaPeerRegistrations}); {@code .credit.messages}: credits returned alone, in a message of their own
     * ({@link RdmaSendPath#returnCredits}). {@code .receive.buffers}: receive
     * buffers posted (where they are posted per connection, a share per connected rank). {@code .dropped.foreign}:
     * messages from no endpoint of the job; {@code .dropped.malformed}; {@code .source-mismatch}: messages whose
     * header names another rank than the NIC's source. Also readable after {@link #close()}.
     */
    public Map<String, Long> counters() {
        final String p = nic.conduit();
        final Map<String, Long> m = new LinkedHashMap<>();
        guard.lock();
        try {
            m.put(p + ".staged.operations", rmaEngine.stagedOperations());
            m.put(p + ".staged.bytes", rmaEngine.stagedBytes());
            final RdmaRegistrationCache cache = rmaEngine.cache();
            m.put(p + ".registration.cache.hits", cache.hits());
            m.put(p + ".registration.cache.misses", cache.misses());
            m.put(p + ".registration.cache.releases", cache.releases());
            m.put(p + ".registration.cache.bytes", cache.pinnedBytes());
            m.put(p + ".registered.operations", rmaEngine.registeredOperations());
            m.put(p + ".atomics", rmaEngine.atomics().started());
            m.put(p + ".registered.open", peerRegistrations == null ? 0L : peerRegistrations.open());
            m.put(p + ".credit.messages", send.creditMessages());
        } finally {
            guard.unlock();
        }
        // the polling thread's own counts, read racily (as udp's are)
        m.put(p + ".receive.buffers", (long) receive.postedBuffers());
        m.put(p + ".dropped.foreign", receive.droppedForeign());
        m.put(p + ".dropped.malformed", receive.droppedMalformed());
        m.put(p + ".source-mismatch", receive.sourceMismatches());
        return m;
    }

    /** For tests: credits toward {@code peer}'s {@code channel}, in units. */
    public int credits(int peer, int channel) {
        return send.credits(peer, channel);
    }

    /** For tests: a full window, in credit units. */
    public int windowUnits() {
        return send.windowUnits();
    }
}
