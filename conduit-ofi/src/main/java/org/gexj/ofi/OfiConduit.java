package org.gexj.ofi;

import org.gexj.PeerFailedException;
import org.gexj.ofi.ffm.Fabric;
import org.gexj.ofi.ffm.FiCqEntries;
import org.gexj.ofi.ffm.FiCqErrorEntry;
import org.gexj.ofi.ffm.FiDomain;
import org.gexj.ofi.ffm.FiErrno;
import org.gexj.ofi.wire.OfiAddressCodec;
import org.gexj.ofi.wire.OfiHeaderFlyweight;
import org.gexj.spi.AttachedSegments;
import org.gexj.spi.Bootstrap;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.JobHealth;
import org.gexj.spi.RmaTransport;
import org.gexj.spi.SegmentDescriptor;
import org.gexj.spi.SegmentRules;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * GEX/J over one libfabric RDM endpoint ({@code GEX_CONDUIT=ofi}); see the module README for the design and the
 * settings ({@link OfiSettings}). This class sizes the buffers, wires the parts together, and runs the poll loop and
 * the teardown; the parts do the work:
 * <ul>
 *   <li>{@link OfiSendPath}: AM frames out, the credits and the backlog of frames the endpoint refused for now;</li>
 *   <li>{@link OfiReceivePath}: the multi-receive buffers, delivery and deferral ({@link OfiDeferred}) of frames and
 *       remote writes;</li>
 *   <li>{@link OfiRmaEngine}: RMA in chunks ({@link OfiOperations}), resumed when the endpoint was busy, heap memory
 *       staged through bounce buffers;</li>
 *   <li>{@link OfiCloseHandshake}: the CLOSE exchange and completion-queue drain of the close;</li>
 *   <li>{@link OfiLiveness}: peer timeouts and failures; {@link OfiRegistrations}: registration keys, the segment's
 *       descriptor;</li>
 *   <li>{@link OfiEndpoint}: every libfabric data-path call; {@link OfiContexts}: the operation contexts a completion
 *       names; {@link OfiGuard}: the lock and the close's state.</li>
 * </ul>
 *
 * <p><b>Progress</b> is manual, driven by {@link #poll}: it delivers deferred items, then completion-queue entries,
 * which it dispatches by their context to the part that posted the operation. A frame refused for
 * {@code GEX_OFI_TIMEOUT} while this rank polls on, or a send that completes in error, fails the job naming the peer.
 *
 * <p>Threads (any thread may call, as the SPI requires): one lock ({@link OfiGuard}) serialises the endpoint
 * ({@code FI_THREAD_DOMAIN}) and guards the parts' shared state; any thread may claim, commit, abort and start RMA.
 * {@link #poll} is called by one thread at a time (the core's poll lock), which alone uses the completion entries read
 * ahead ({@link OfiPollBatch}) and the deferred frames and remote writes. The lock is never held while a listener
 * runs, so handlers may send. The few fields a poll reads without the lock to skip work are volatile, written under
 * it.
 *
 * <p><b>Close</b> may run while other threads still call in: from its start every section that calls into libfabric
 * checks for it under the lock and throws {@link IllegalStateException}, the close alone drains (its RMA operations,
 * then CLOSE to every peer) and tears the fabric down under the lock, and the memory a running poll reads is freed
 * when that poll ends.
 */
final class OfiConduit implements Conduit {
    static final long PAGE = SegmentRules.PAGE_SIZE;
    /** The source of a completion entry where the provider names none. */
    static final long NO_SOURCE = -2;
    /** How long an error the provider attributes to no operation waits for the job to name a failed peer. */
    private static final long ATTRIBUTE_NS = 2_000_000_000L;

    private final int rank;
    private final int size;
    private final JobHealth health;
    private final Bootstrap bootstrap;
    private final OfiSettings settings;
    private final OfiFabric fabric;
    private final Capabilities capabilities;
    private final OfiGuard guard;
    private final Arena arena = Arena.ofShared();
    /** Set by gexrun: a failed job ends this process, which releases the endpoint then. */
    private final boolean processEndsOnFailure;
    private final int immediateBits;
    private final int receiveSlots;
    private final long receiveBufferBytes;
    private final OfiContexts contexts;
    private final OfiEndpoint endpoint;
    private final OfiLiveness liveness;
    private final OfiRegistrations registrations;
    private final OfiSendPath send;
    private final OfiReceivePath receive;
    private final OfiRmaEngine rmaEngine;
    private final OfiRmaTransport rma;
    private final OfiCloseHandshake handshake;
    private final OfiPollBatch batch;
    private final FiCqErrorEntry errorEntry;
    /** The libfabric objects are closed; the memory, which a running poll may still read, is freed then or later. */
    private boolean fabricClosed;
    private boolean memoryFreed;

    private OfiConduit(ConduitContext context) {
        this.rank = context.rank();
        this.size = context.size();
        this.health = context.health();
        this.bootstrap = context.bootstrap();
        this.guard = new OfiGuard(rank);
        this.settings = OfiSettings.from(context.config(), context.bootstrap().localAddress());
        this.processEndsOnFailure = context.config().getBoolean("GEX_EXIT_ON_FAILURE", false);
        final int frame = settings.frameLength();
        final int slotBytes = align(OfiHeaderFlyweight.LENGTH + frame, 64);
        final int windowUnits = (int) Math.min(Integer.MAX_VALUE / 4,
            settings.creditBytes() / OfiHeaderFlyweight.CREDIT_UNIT);
        // what may wait in the receive buffers at once: every peer's window on both channels, and credit messages
        final long outstanding = 2L * size * (long) windowUnits * OfiHeaderFlyweight.CREDIT_UNIT
            + 2L * size * 16 * 64;
        this.receiveBufferBytes = align(outstanding + 2L * slotBytes, PAGE);
        if (receiveBufferBytes > Integer.MAX_VALUE / 2) {
            throw new IllegalArgumentException(OfiSettings.CREDIT_BYTES + "=" + settings.creditBytes() + " for "
                + size + " ranks needs receive buffers of " + receiveBufferBytes + " bytes, more than "
                + Integer.MAX_VALUE / 2 + ": lower it");
        }
        this.receiveSlots = 3; // two suffice by the credits; a third covers a provider slow to release one
        final int sendSlots = settings.sendBuffers();
        final long cqSize = (long) sendSlots + settings.rmaOperations() + 2L * size * windowUnits + 1024;
        this.fabric = OfiFabric.open(settings, size, Math.min(cqSize, 1 << 20), slotBytes);
        boolean opened = false;
        try {
            final long cqData = Math.min(fabric.cqDataSize, settings.cqDataBytes());
            final boolean immediateInData = cqData >= Long.BYTES;
            this.immediateBits = cqData >= Integer.BYTES ? 32 : 0;
            this.endpoint = new OfiEndpoint(fabric, size, arena);
            this.contexts = new OfiContexts(arena, sendSlots, receiveSlots, settings.rmaOperations());
            this.liveness = new OfiLiveness(guard, health, rank, size, settings.timeoutNanos(), fabric.provider);
            this.registrations = new OfiRegistrations(fabric);
            // the registrations of the send, receive and bounce memory take keys in this order
            this.send = new OfiSendPath(guard, endpoint, contexts, liveness, fabric, registrations, arena, rank, size,
                settings, sendSlots, slotBytes, windowUnits);
            final OfiDeferred deferred = new OfiDeferred((int) Math.min(Integer.MAX_VALUE / 2, outstanding));
            this.receive = new OfiReceivePath(guard, endpoint, contexts, send, liveness, deferred, health, fabric,
                registrations, arena, rank, size, settings, immediateInData, receiveSlots, receiveBufferBytes,
                slotBytes);
            this.rmaEngine = new OfiRmaEngine(guard, endpoint, contexts, registrations, deferred, liveness, fabric,
                arena, rank, size, settings.rmaOperations(), immediateInData);
            this.rma = new OfiRmaTransport(rmaEngine);
            this.batch = new OfiPollBatch(arena);
            this.errorEntry = new FiCqErrorEntry(arena);
            this.handshake = new OfiCloseHandshake(guard, endpoint, contexts, send, receive, rmaEngine, batch,
                errorEntry, health, arena, rank, size, settings.timeoutNanos());
            endpoint.learnAddresses(bootstrap, rank);
            receive.postAll();
            // a reassembled Long's payload is one write carrying its immediate: at most one message
            final long maxLong = fabric.maxMessageSize;
            this.capabilities = Capabilities.builder("ofi").maxFrameLength(frame).maxMedium(frame, frame)
                .maxLong(maxLong, maxLong).maxPackedLong(frame)
                .immediateBits(immediateBits).nativeRma(true).crossMapped(false)
                .deferredLocalCompletion(true).conduitBarrier(false).orderedChannels(false).build();
            bootstrap.barrier(); // every rank's receive buffers are posted before anyone sends
            opened = true;
        } finally {
            if (!opened) {
                fabric.close();
                arena.close();
            }
        }
        if (rank == 0) {
            System.err.println("gex: " + this);
        }
    }

    /** Collective over the job: opens this rank's endpoint and learns every other one's address. */
    static OfiConduit open(ConduitContext context) {
        return new OfiConduit(context);
    }

    private static int align(int n, int to) {
        return (n + to - 1) / to * to;
    }

    private static long align(long n, long to) {
        return (n + to - 1) / to * to;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    private void checkTarget(int target) {
        if (target < 0 || target >= size) {
            throw new IllegalArgumentException("target rank " + target + " outside [0, " + size + ")");
        }
    }

    // ------------------------------------------------------------------------------------------------- AM frames

    /**
     * @return {@link #OK}, or {@link #NO_ROOM} when no send buffer is free, the target's credits are short, or
     *         the endpoint still refuses an earlier frame to the target
     */
    @Override
    public int claim(Claim claim, int target, int channel, int length) {
        guard.ensureOpen();
        checkTarget(target);
        if (channel != REQUEST && channel != REPLY) {
            throw new IllegalArgumentException("channel " + channel + " is neither REQUEST (0) nor REPLY (1)");
        }
        if (length < 0 || length > settings.frameLength()) {
            throw new IllegalArgumentException("frame length " + length + " outside [0, " + settings.frameLength()
                + "] (maxFrameLength, " + OfiSettings.FRAME + ")");
        }
        return send.claim(claim, target, channel, length);
    }

    @Override
    public void commit(Claim claim) {
        send.commit(claim);
    }

    @Override
    public void abort(Claim claim) {
        send.abort(claim);
    }

    // ------------------------------------------------------------------------------------------------- progress

    /**
     * Delivers deferred items the mask now allows, then completion-queue entries: frames and remote writes of the
     * polled channels, completions of this rank's RMA operations and sends. Items of a channel not polled are
     * deferred. Sends a credit message to every peer owed enough credits.
     */
    @Override
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
            send.returnCredits(delivered == 0);
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

    /** Reads a batch of completions into the entry array. @return false if none */
    private boolean fill() {
        final String unattributed;
        guard.lockOpen();
        try {
            final long n = endpoint.readWithSources(batch.entries(), OfiPollBatch.CAPACITY);
            if (n > 0) {
                batch.filled((int) n);
                return true;
            }
            if (n == -FiErrno.FI_EAVAIL) {
                unattributed = readError();
                if (unattributed == null) {
                    return false;
                }
            } else {
                if (n != -FiErrno.FI_EAGAIN) {
                    FiErrno.check("fi_cq_read", n);
                }
                return false;
            }
        } finally {
            guard.unlock();
        }
        throw unattributedError(unattributed);
    }

    /**
     * An error the provider reports for no operation of this rank. shm reports a peer that died in the middle of a
     * transfer so (no context, {@code FI_COMPLETION}, EIO), naming nobody; the launcher names the dead rank within
     * milliseconds of its death, so the job's health is given {@link #ATTRIBUTE_NS} to say who it was (without the
     * endpoint's lock), and its {@link PeerFailedException} is thrown instead when it does.
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
        return new OfiException("completion queue error of no operation of rank " + rank + " (" + fabric.provider
            + "), and no peer known to have failed within " + ATTRIBUTE_NS / 1_000_000 + " ms: " + text);
    }

    /**
     * Dispatches completion entry {@code entry} to the part whose operation it names.
     *
     * @return 1 if a frame, remote write or RMA completion was delivered, else 0
     */
    private int process(int entry, ConduitListener listener, int mask) {
        final FiCqEntries entries = batch.entries();
        if ((entries.flags(entry) & Fabric.FI_REMOTE_CQ_DATA) != 0) {
            return receive.remoteWrite(entries, entry, listener, mask);
        }
        final int index = contexts.decode(entries.context(entry));
        if (index < 0) {
            return 0; // no operation of ours (a provider's own event)
        }
        if (contexts.isReceive(index)) {
            final long source = endpoint.namesSources() ? entries.source(entry) : NO_SOURCE;
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
        if (endpoint.readError(errorEntry) != 1) {
            return null;
        }
        final String text = endpoint.errorText(errorEntry);
        final int index = contexts.decode(errorEntry.context());
        if (index < 0) {
            return text;
        }
        if (contexts.isSend(index)) {
            send.failed(index, text);
        }
        if (contexts.isReceive(index)) {
            if (!guard.closed()) {
                throw new OfiException("a receive buffer of rank " + rank + " failed: " + text);
            }
            return null;
        }
        rmaEngine.chunkFailed(contexts.operationOf(index));
        return null;
    }

    // ------------------------------------------------------------------------------------------------- RMA

    @Override
    public RmaTransport rma() {
        return rma;
    }

    // ------------------------------------------------------------------------------------------------- segments

    /**
     * Collective: allocates this rank's segment (page aligned, zeroed), registers it for remote access and exchanges
     * (address, size, key) with every rank in one allgather.
     */
    @Override
    public AttachedSegments attachSegment(long bytes) {
        guard.ensureOpen();
        SegmentRules.checkAttach("ofi", rank, registrations.segment(), bytes);
        final MemorySegment mine = arena.allocate(bytes, PAGE);
        final MemorySegment mr;
        guard.lockOpen();
        try {
            mr = fabric.register(mine, OfiRegistrations.SEGMENT_KEY, true);
        } finally {
            guard.unlock();
        }
        final byte[][] blobs = bootstrap.allgather(OfiAddressCodec.encode(
            new OfiAddressCodec.Segment(mine.address(), bytes, FiDomain.key(mr))));
        final SegmentDescriptor[] descriptors = new SegmentDescriptor[size];
        final long[] base = new long[size];
        final long[] sizes = new long[size];
        final long[] keys = new long[size];
        for (int r = 0; r < size; r++) {
            final OfiAddressCodec.Segment s = OfiAddressCodec.decodeSegment(blobs[r], r);
            base[r] = s.base();
            sizes[r] = s.size();
            keys[r] = s.key();
            descriptors[r] = new SegmentDescriptor(s.base(), s.size(),
                java.nio.ByteBuffer.allocate(Long.BYTES).putLong(s.key()).array());
        }
        rmaEngine.segments(base, sizes, keys);
        registrations.segment(mine, mr);
        return new AttachedSegments(mine, descriptors);
    }

    // ------------------------------------------------------------------------------------------------- close

    /**
     * Closes the endpoint and every libfabric object, newest first, then frees the memory. Idempotent. Unless the job
     * failed, first exchanges CLOSE messages with every peer while driving progress ({@link OfiCloseHandshake}).
     */
    @Override
    public void close() {
        guard.startClosing();
        if (!guard.closed() && !health.failed()) {
            try {
                handshake.drain();
            } catch (RuntimeException e) {
                System.err.println("gex: ofi rank " + rank + " closing without its peers' CLOSE: " + e);
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
                System.err.println("gex: ofi rank " + rank + " leaves its endpoint open: " + sends + " send(s) and "
                    + rmaEngine.inUse() + " RMA operation(s) still in flight");
                return;
            }
            fabricClosed = true;
            try {
                fabric.close();
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

    /** The end of the outermost poll of a closed conduit: frees the memory a close left to it. */
    private void freeMemoryAfterPoll() {
        guard.lock();
        try {
            if (fabricClosed && guard.polling() == 0) {
                freeMemory();
            }
        } finally {
            guard.unlock();
        }
    }

    /** Frees the conduit's native memory once, after the fabric is closed (under the lock). */
    private void freeMemory() {
        if (!memoryFreed) {
            memoryFreed = true;
            arena.close();
        }
    }

    // ------------------------------------------------------------------------------------------------- reports

    /** Provider, domain and the limits that follow from it, printed by rank 0 at start-up. */
    @Override
    public String toString() {
        return "ofi conduit rank " + rank + " of " + size + ": provider " + fabric.provider + ", domain "
            + fabric.domainName + ", max message " + fabric.maxMessageSize + " B, inject " + fabric.injectSize
            + " B, CQ data " + fabric.cqDataSize + " B"
            + (settings.cqDataBytes() < fabric.cqDataSize ? " (" + settings.cqDataBytes() + " used)" : "")
            + ", mr_mode " + Fabric.mrModeText(fabric.mrMode) + ", frame "
            + settings.frameLength() + " B, credits " + send.windowUnits() * OfiHeaderFlyweight.CREDIT_UNIT
            + " B per peer and channel, receive buffers " + receiveSlots + " x " + receiveBufferBytes + " B, immediate "
            + immediateBits + " bits";
    }

    /**
     * {@code ofi.staged.operations}: RMA operations (puts, gets, AM Long payloads) on heap memory, staged through the
     * bounce buffers; {@code ofi.staged.bytes}: the bytes they moved. {@code ofi.dropped.foreign}: messages from no
     * endpoint of the job's address vector; {@code ofi.dropped.malformed}; {@code ofi.source-mismatch}: messages whose
     * header names another rank than the provider's source; {@code ofi.source-checked}: 1 where the provider names
     * sources ({@code FI_SOURCE}). Also readable after {@link #close()}.
     */
    @Override
    public java.util.Map<String, Long> counters() {
        final java.util.Map<String, Long> m = new java.util.LinkedHashMap<>();
        guard.lock();
        try {
            m.put("ofi.staged.operations", rmaEngine.stagedOperations());
            m.put("ofi.staged.bytes", rmaEngine.stagedBytes());
        } finally {
            guard.unlock();
        }
        // the polling thread's own counts, read racily (as udp's are)
        m.put("ofi.dropped.foreign", receive.droppedForeign());
        m.put("ofi.dropped.malformed", receive.droppedMalformed());
        m.put("ofi.source-mismatch", receive.sourceMismatches());
        m.put("ofi.source-checked", fabric.sourceKnown ? 1L : 0L);
        return m;
    }

    /** For tests: credits toward {@code peer}'s {@code channel}, in units. */
    int credits(int peer, int channel) {
        return send.credits(peer, channel);
    }

    int windowUnits() {
        return send.windowUnits();
    }

    String provider() {
        return fabric.provider;
    }
}
