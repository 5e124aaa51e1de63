package org.gexj.testkit.emu;

import org.gexj.spi.AtomicCodes;
import org.gexj.spi.AttachedSegments;
import org.gexj.spi.Bootstrap;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.RmaTransport;
import org.gexj.spi.SegmentDescriptor;
import org.gexj.spi.SegmentRules;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * An emulated RDMA network between the ranks of one JVM ({@code GEX_CONDUIT=emu}), so that the library's network code
 * paths (native RMA, put-with-immediate, deferred local completion, unordered delivery, the core's dissemination
 * barrier) run in tests before any real network conduit exists. Nothing leaves the JVM: the ranks of a job are
 * threads started by {@link org.gexj.launch.InProcessJob} and find each other in a static registry keyed by the job
 * id ({@link EmuJob}).
 *
 * <p><b>AM.</b> Nothing is cross-mapped: {@link #claim} hands out a pooled send buffer of {@code GEX_EMU_FRAME} bytes,
 * from a pool of {@code GEX_EMU_CREDITS} per (sender, target, channel); an empty pool is {@link #NO_ROOM}.
 * {@link #commit} passes the buffer itself to the target's inbound queue; the target gives it back to the sender's
 * pool once its {@link #poll} has delivered it.
 *
 * <p><b>RMA.</b> {@link #rma()} moves data when an operation <em>lands</em>, not at the call: the operation is queued
 * to the target, whose poll performs the copy (a put reads its source then, so local completion is deferred), reports
 * {@link ConduitListener#onRemoteWrite} for a put-with-immediate, and queues the completion to the initiator, whose
 * own poll reports {@link ConduitListener#onRmaCompletion}. A get copies from the target's segment into the
 * initiator's destination when the target delivers it. Operations in flight per (initiator, target) are bounded by
 * {@code GEX_EMU_CREDITS} too. A copy that fails (the initiator's buffer was freed, or is confined to another thread)
 * completes with {@link RmaTransport#ACCESS_ERROR} and writes nothing.
 *
 * <p><b>Delivery</b> is unordered and reproducible: each rank's poll delivers what has arrived (frames of either
 * channel, landing operations, completions, duplicate tags) in an order drawn from a {@link SplittableRandom}, holding
 * items back for up to {@code GEX_EMU_DELAY} polls, never starving one ({@link EmuInbox}). A poll of the reply channel
 * alone delivers reply frames and RMA completions, not request frames or put-with-immediate landings, which may start
 * request handlers (the SPI's poll contract). The same settings and the same
 * arrivals give the same order; {@link #toString()} (printed by rank 0 when a job opens) names them.
 *
 * <p><b>Wire latency.</b> With {@code GEX_EMU_LATENCY_US} = L > 0, everything sent between ranks (a frame, an RMA
 * operation to its target, a completion back to its initiator) arrives no earlier than L after it was sent, and a poll
 * sees it only from then on. An operation's completion is sent when it lands, so it reaches its initiator no earlier
 * than 2 L after the call: a round trip, as a reliable-connection NIC's acknowledgement. A landed put-with-immediate's
 * report stays at its target and costs no latency. Time passes without anyone waiting for it: a poll reads the clock
 * and lets in what is due.
 *
 * <p><b>Closed peers.</b> Once a rank has closed, {@link #claim} and the RMA calls towards it return
 * {@link #NO_ROOM}, as a network conduit sees a peer whose credits never come back; a frame committed to it is
 * dropped. Its close hands back what it had not delivered: frames to their senders' pools, completions to their
 * initiators' pools, and operations that had not landed complete at their initiators with
 * {@link RmaTransport#PEER_CLOSED}. An item that reaches a rank while it closes is lost with it (its sender's credit
 * too), as on a real network. Claim, commit, abort, poll, attach and the RMA calls on a closed conduit throw
 * {@link IllegalStateException}.
 *
 * <p>Environment (every value range-checked at open; a bad one is an {@link IllegalArgumentException} naming it):
 * <ul>
 *   <li>{@code GEX_EMU_FRAME}: largest frame in bytes, [1024, 1 Mi], default 8192; also the Medium limit and the
 *       largest packed Long.</li>
 *   <li>{@code GEX_EMU_CREDITS}: send buffers per (sender, target, channel) and RMA operations in flight per
 *       (initiator, target), [1, 4096], default 32. Small values make back-pressure easy to reach.</li>
 *   <li>{@code GEX_EMU_DELAY}: most polls an arrived item may be held back before it may be delivered, [0, 1000],
 *       default 4; 0 still reorders.</li>
 *   <li>{@code GEX_EMU_SEED}: seed of the delivery choices, any long, default a fixed value; mixed with the rank, so
 *       ranks choose differently and runs repeat.</li>
 *   <li>{@code GEX_EMU_IMM_BITS}: bits of immediate data a put-with-immediate carries, 32 (verbs) or 64 (libfabric),
 *       default 64; the immediate is masked to them.</li>
 *   <li>{@code GEX_EMU_DUPLICATE_TAGS}: probability in [0, 1], default 0, that a landed put-with-immediate is reported
 *       to the target a second time (a duplicate tag, after the first, possibly after the initiator's completion and
 *       the slot's next use), so that the AM layer's duplicate counting can be tested.</li>
 *   <li>{@code GEX_EMU_HIDE_SOURCE}: 1 reports remote writes with {@link ConduitListener#SOURCE_UNKNOWN} as their
 *       source, as libfabric's verbs;ofi_rxm does, so that the AM layer must take it from the tag; default 0.</li>
 *   <li>{@code GEX_EMU_LATENCY_US}: one-way wire latency in microseconds, [0, 1000000], default 0 (items arrive when
 *       sent); a model of a network's latency, for comparing protocols by the round trips they need.</li>
 * </ul>
 *
 * <p>Threads (as the SPI requires): claim, commit, abort and the RMA calls from any threads;
 * {@link #poll} from one thread at a time, which may poll again from inside a delivery; attach and close from one
 * thread. No call blocks, and the data path allocates nothing: items are pooled and the queues are arrays.
 */
public final class EmuConduit implements Conduit {
    private static final long PAGE = SegmentRules.PAGE_SIZE;
    /** Most items one rank's inbox may have to hold: 4 x ranks x GEX_EMU_CREDITS. */
    private static final long MAX_INBOX = 1L << 24;

    private final int rank;
    private final int size;
    private final String jobId;
    private final Bootstrap bootstrap;
    private final EmuSettings settings;
    private final Capabilities capabilities;
    private final long immediateMask;
    private final SplittableRandom random;
    private final EmuInbox inbox;
    /** Reports of landed puts-with-immediate, so that their initiators' completions need not wait for them. */
    private final EmuPool notes;
    private final EmuJob job;
    private final EmuConduit[] peers;
    /** Send buffers at {@code (target << 1) | channel}, made on first use. */
    private final AtomicReferenceArray<EmuPool> framePools;
    /** RMA operations by target, made on first use. */
    private final AtomicReferenceArray<EmuPool> rmaPools;
    /** Atomics applied to this rank's segment ({@code emu.atomics}). */
    private final AtomicLong atomicsApplied = new AtomicLong();
    private final EmuRmaTransport rma = new EmuRmaTransport(this);
    private final Arena arena = Arena.ofShared();
    private volatile MemorySegment segment;
    private volatile long[] segmentSizes;
    private volatile boolean closed;

    private EmuConduit(ConduitContext context) {
        this.rank = context.rank();
        this.size = context.size();
        this.jobId = context.jobId();
        this.bootstrap = context.bootstrap();
        this.settings = EmuSettings.from(context.config());
        final int frame = settings.frameLength();
        this.capabilities = Capabilities.builder("emu").maxFrameLength(frame).maxMedium(frame, frame)
            .maxLong(1 << 30, 1 << 30).maxPackedLong(frame).immediateBits(settings.immediateBits()).nativeRma(true)
            .deferredLocalCompletion(true).conduitBarrier(false).crossMapped(false).orderedChannels(false)
            .build();
        this.immediateMask = settings.immediateBits() == 64 ? -1L : 0xFFFF_FFFFL;
        this.random = new SplittableRandom(settings.rankSeed(rank));
        // what can be here at once: frames of every sender on both channels, operations landing from every
        // initiator, and the completions of this rank's own operations
        final long capacity = 5L * size * settings.credits();
        if (capacity > MAX_INBOX) {
            throw new IllegalArgumentException(EmuSettings.CREDITS + "=" + settings.credits() + " for " + size
                + " ranks lets " + capacity + " items wait at one rank, more than " + MAX_INBOX);
        }
        this.inbox = new EmuInbox((int) capacity, random, settings.delay(),
            TimeUnit.MICROSECONDS.toNanos(settings.latencyUs()));
        this.framePools = new AtomicReferenceArray<>(2 * size);
        this.rmaPools = new AtomicReferenceArray<>(size);
        this.notes = new EmuPool(size * settings.credits(), 0);
        try {
            this.job = EmuJob.join(jobId, size, rank, this);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
        try {
            bootstrap.barrier();
            this.peers = job.ranks();
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
        if (rank == 0) {
            System.err.println("gex: " + this + " (the same settings replay its delivery choices)");
        }
    }

    /** Collective over the job: registers this rank and finds every other one. */
    static EmuConduit open(ConduitContext context) {
        return new EmuConduit(context);
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    int rank() {
        return rank;
    }

    boolean isClosed() {
        return closed;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("emu conduit of rank " + rank + " is closed");
        }
    }

    private void checkTarget(int target) {
        if (target < 0 || target >= size) {
            throw new IllegalArgumentException("target rank " + target + " outside [0, " + size + ")");
        }
    }

    private static void checkChannel(int channel) {
        if (channel != REQUEST && channel != REPLY) {
            throw new IllegalArgumentException("channel " + channel + " is neither REQUEST (0) nor REPLY (1)");
        }
    }

    // ------------------------------------------------------------------------------------------------- AM frames

    /** @return {@link #OK}, or {@link #NO_ROOM} when the path's credits are all in use or the target closed */
    @Override
    public int claim(Claim claim, int target, int channel, int length) {
        ensureOpen();
        checkTarget(target);
        checkChannel(channel);
        if (length < 0 || length > settings.frameLength()) {
            throw new IllegalArgumentException("frame length " + length + " outside [0, " + settings.frameLength()
                + "] (maxFrameLength, " + EmuSettings.FRAME + ")");
        }
        if (peers[target].closed) {
            return NO_ROOM;
        }
        final EmuItem item = framePool(target, channel).take();
        if (item == null) {
            return NO_ROOM;
        }
        claim.set(item.buffer, 0, length, target, channel, item.index);
        return OK;
    }

    /** Passes the claimed buffer to the target's queue; dropped if the target closed since the claim. */
    @Override
    public void commit(Claim claim) {
        ensureOpen();
        final EmuItem item = claimedItem(claim);
        item.kind = EmuItem.FRAME;
        item.source = rank;
        item.channel = claim.channel();
        item.length = claim.length();
        item.state = EmuItem.IN_FLIGHT;
        final EmuConduit target = peers[claim.target()];
        if (target.closed) {
            item.release();
        } else if (!target.inbox.offer(item)) {
            item.release();
            throw new IllegalStateException("emu rank " + claim.target() + "'s inbound queue is full: more items in"
                + " flight than credits allow");
        }
    }

    @Override
    public void abort(Claim claim) {
        ensureOpen();
        claimedItem(claim).release();
    }

    private EmuItem claimedItem(Claim claim) {
        checkTarget(claim.target());
        checkChannel(claim.channel());
        return framePool(claim.target(), claim.channel()).claimed(claim.handle());
    }

    private EmuPool framePool(int target, int channel) {
        final int at = (target << 1) | channel;
        final EmuPool pool = framePools.get(at);
        return pool != null ? pool : firstUse(framePools, at, settings.frameLength());
    }

    private EmuPool rmaPool(int target) {
        final EmuPool pool = rmaPools.get(target);
        return pool != null ? pool : firstUse(rmaPools, target, 0);
    }

    /** Pools are made when a path is first used, so a large job does not hold buffers for paths it never uses. */
    private EmuPool firstUse(AtomicReferenceArray<EmuPool> pools, int at, int frameLength) {
        final EmuPool made = new EmuPool(settings.credits(), frameLength);
        return pools.compareAndSet(at, null, made) ? made : pools.get(at);
    }

    // ------------------------------------------------------------------------------------------------- delivery

    /**
     * Delivers up to {@code limit} items in the inbox's random order: frames of the polled channels and, when both
     * are polled, landing RMA operations (performed here), duplicate tags and completions of this rank's operations.
     * A listener's exception comes out of this call after the item is retired; the rest stay for later polls.
     */
    @Override
    public int poll(ConduitListener listener, int channelMask, int limit) {
        ensureOpen();
        inbox.beginPoll();
        int delivered = 0;
        EmuItem item;
        while (delivered < limit && (item = inbox.next(channelMask)) != null) {
            delivered++;
            deliver(item, listener);
        }
        return delivered;
    }

    private void deliver(EmuItem item, ConduitListener listener) {
        switch (item.kind) {
            case EmuItem.FRAME -> {
                try {
                    listener.onFrame(item.channel, item.buffer, 0, item.length);
                } finally {
                    item.release();
                }
            }
            case EmuItem.PUT, EmuItem.PUT_IMMEDIATE -> landPut(item, listener);
            case EmuItem.GET -> {
                item.status = copy(segment, item.remoteOffset, item.local, item.localOffset, item.nbytes);
                complete(item);
            }
            case EmuItem.ATOMIC -> {
                item.status = applyAtomic(item);
                complete(item);
            }
            case EmuItem.REMOTE_WRITE, EmuItem.DUPLICATE_TAG -> report(item, listener);
            case EmuItem.COMPLETION -> {
                final long operation = item.operation;
                final int status = item.status;
                item.release(); // before the listener, which may start the next operation on this credit
                listener.onRmaCompletion(operation, status);
            }
            default -> throw new IllegalStateException("emu item of unknown kind " + item.kind);
        }
    }

    /**
     * The data lands now, on a poll of either channel. A put-with-immediate is then reported by a note that only a poll
     * of the request channel delivers, while its initiator hears of the completion at once, as from a NIC's
     * acknowledgement: a handler waiting for its own put's completion never waits for the target's software. Without a
     * free note, the operation itself is the report and completes after it.
     */
    private void landPut(EmuItem item, ConduitListener listener) {
        item.status = copy(item.local, item.localOffset, segment, item.remoteOffset, item.nbytes);
        if (item.kind != EmuItem.PUT_IMMEDIATE || item.status != OK) {
            complete(item);
            return;
        }
        final EmuItem note = notes.take();
        if (note == null) {
            item.kind = EmuItem.REMOTE_WRITE;
            inbox.hold(item, 0);
            return;
        }
        note.kind = EmuItem.REMOTE_WRITE;
        note.source = item.source;
        note.immediate = item.immediate;
        complete(item);
        inbox.hold(note, 0);
    }

    /** Reports a landed put-with-immediate, and again later when a duplicate is asked for. */
    private void report(EmuItem item, ConduitListener listener) {
        final boolean again = item.kind == EmuItem.REMOTE_WRITE && settings.duplicateTags() > 0
            && random.nextDouble() < settings.duplicateTags();
        try {
            listener.onRemoteWrite(settings.hideSource() ? ConduitListener.SOURCE_UNKNOWN : item.source,
                item.immediate);
        } finally {
            if (again) {
                item.kind = EmuItem.DUPLICATE_TAG;
                inbox.hold(item, 1);
            } else {
                retireReport(item);
            }
        }
    }

    private void retireReport(EmuItem item) {
        if (item.from(notes)) {
            item.release();
        } else {
            complete(item);
        }
    }

    private static int copy(MemorySegment from, long fromOffset, MemorySegment to, long toOffset, long nbytes) {
        if (nbytes == 0) {
            return OK;
        }
        if (from == null || to == null) {
            return RmaTransport.ACCESS_ERROR;
        }
        try {
            MemorySegment.copy(from, fromOffset, to, toOffset, nbytes);
            return OK;
        } catch (RuntimeException e) {
            // closed arena, confined to another thread, read-only destination: the operation fails, the rank goes on
            return RmaTransport.ACCESS_ERROR;
        }
    }

    /** An atomic lands: applied to the segment, its previous value stored into the initiator's memory. */
    private int applyAtomic(EmuItem item) {
        final long old = EmuAtomics.apply(segment, item.remoteOffset, item.datatype, item.atomicOp, item.operand,
            item.compare);
        atomicsApplied.incrementAndGet();
        if (item.local == null) {
            return OK;
        }
        try {
            if (item.nbytes == 4) {
                item.local.set(ValueLayout.JAVA_INT_UNALIGNED, item.localOffset, (int) old);
            } else {
                item.local.set(ValueLayout.JAVA_LONG_UNALIGNED, item.localOffset, old);
            }
            return OK;
        } catch (RuntimeException e) {
            return RmaTransport.ACCESS_ERROR; // the result's memory closed meanwhile: the operation itself took place
        }
    }

    /** Sends {@code item}, landed or failed, back to its initiator as a completion. */
    private void complete(EmuItem item) {
        item.kind = EmuItem.COMPLETION;
        final EmuConduit initiator = peers[item.source];
        if (initiator.closed || !initiator.inbox.offer(item)) {
            item.release(); // nobody waits for it any more (a full queue is ruled out by the credits)
        }
    }

    // ------------------------------------------------------------------------------------------------- RMA

    /** {@code emu.atomics}: atomics applied to this rank's segment (by its "NIC", {@link RmaTransport#atomic}). */
    @Override
    public java.util.Map<String, Long> counters() {
        return java.util.Map.of("emu.atomics", atomicsApplied.get());
    }

    @Override
    public RmaTransport rma() {
        return rma;
    }

    /**
     * Starts an RMA operation: checks it, takes a credit of the path and queues it to the target.
     *
     * @return {@link #OK}, or {@link #NO_ROOM} (nothing started) when the path's credits are in use or the
     *         target closed
     */
    int startRma(int kind, int peer, long remoteOffset, MemorySegment local, long localOffset, long nbytes,
                 long immediate, long operation) {
        ensureOpen();
        checkTarget(peer);
        RmaTransport.checkRanges("emu", rank, segmentSizes, peer, remoteOffset, local, localOffset, nbytes);
        final EmuItem item = takeItem(peer);
        if (item == null) {
            return NO_ROOM;
        }
        item.immediate = immediate & immediateMask;
        return send(peer, item, kind, local, localOffset, remoteOffset, nbytes, operation);
    }

    /** An item of the path to {@code peer}, or null when its credits are in use or the target closed. */
    private EmuItem takeItem(int peer) {
        return peers[peer].closed ? null : rmaPool(peer).take();
    }

    /** Fills what every RMA item carries and queues it to {@code peer}'s inbox. @return {@link #OK} */
    private int send(int peer, EmuItem item, int kind, MemorySegment local, long localOffset, long remoteOffset,
                     long nbytes, long operation) {
        item.kind = kind;
        item.source = rank;
        item.local = local;
        item.localOffset = localOffset;
        item.remoteOffset = remoteOffset;
        item.nbytes = nbytes;
        item.operation = operation;
        item.status = OK;
        item.state = EmuItem.IN_FLIGHT;
        if (!peers[peer].inbox.offer(item)) {
            item.release();
            throw new IllegalStateException("emu rank " + peer + "'s inbound queue is full: more items in flight than"
                + " credits allow");
        }
        return OK;
    }

    /** {@link RmaTransport#atomic}: checked, then queued to the target like a get of the value's width. */
    int startAtomic(int peer, long remoteOffset, int datatype, int op, long operand, long compare,
                    MemorySegment result, long resultOffset, long operation) {
        final boolean fetch = result != null;
        if (!EmuAtomics.valid(datatype, op, fetch)) {
            throw new UnsupportedOperationException("emu performs no " + (fetch ? "fetching " : "")
                + AtomicCodes.op(op) + " on " + AtomicCodes.datatype(datatype) + ": nothing was sent to rank " + peer);
        }
        final int bytes = AtomicCodes.bytes(datatype);
        if ((remoteOffset & (bytes - 1)) != 0) {
            throw new IllegalArgumentException("atomic at offset " + remoteOffset + " of rank " + peer
                + "'s segment: not aligned to its " + bytes + " bytes");
        }
        ensureOpen();
        checkTarget(peer);
        RmaTransport.checkRanges("emu", rank, segmentSizes, peer, remoteOffset, fetch ? result : null, resultOffset,
            fetch ? bytes : 0);
        if (remoteOffset > segmentSizes[peer] - bytes) {
            throw new IllegalArgumentException("atomic at offset " + remoteOffset + " outside rank " + peer
                + "'s segment [0, " + segmentSizes[peer] + ")");
        }
        final EmuItem item = takeItem(peer);
        if (item == null) {
            return NO_ROOM;
        }
        item.immediate = 0;
        item.datatype = datatype;
        item.atomicOp = op;
        item.operand = operand;
        item.compare = compare;
        return send(peer, item, EmuItem.ATOMIC, result, resultOffset, remoteOffset, bytes, operation);
    }

    // ------------------------------------------------------------------------------------------------- segments

    /**
     * Collective: allocates this rank's segment (page aligned, zeroed, off-heap), publishes it with this conduit in the
     * registry, and exchanges descriptors (base address, size, empty key) in one allgather.
     */
    @Override
    public AttachedSegments attachSegment(long bytes) {
        ensureOpen();
        SegmentRules.checkAttach("emu", rank, segment, bytes);
        final MemorySegment mine = arena.allocate(bytes, PAGE);
        segment = mine;
        final byte[][] gathered = bootstrap.allgather(
            ByteBuffer.allocate(2 * Long.BYTES).putLong(mine.address()).putLong(bytes).array());
        final SegmentDescriptor[] descriptors = new SegmentDescriptor[size];
        final long[] sizes = new long[size];
        for (int r = 0; r < size; r++) {
            final ByteBuffer d = ByteBuffer.wrap(gathered[r]);
            descriptors[r] = new SegmentDescriptor(d.getLong(), d.getLong(), new byte[0]);
            sizes[r] = descriptors[r].size();
        }
        segmentSizes = sizes;
        return new AttachedSegments(mine, descriptors);
    }

    // ------------------------------------------------------------------------------------------------- close

    /**
     * Unregisters this rank, hands back what it had not delivered (see the class comment) and frees its segment.
     * Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        job.leave(rank, this);
        if (peers != null) {
            EmuItem item;
            while ((item = inbox.takeAny()) != null) {
                switch (item.kind) {
                    case EmuItem.PUT, EmuItem.PUT_IMMEDIATE, EmuItem.GET -> {
                        item.status = RmaTransport.PEER_CLOSED;
                        complete(item);
                    }
                    // landed: the report is lost
                    case EmuItem.REMOTE_WRITE, EmuItem.DUPLICATE_TAG -> retireReport(item);
                    default -> item.release();
                }
            }
        }
        segment = null;
        arena.close();
    }

    /** Rank, job and every setting, so that a failing run's output says how to replay it. */
    @Override
    public String toString() {
        return "emu conduit rank " + rank + " of " + size + " in job " + jobId + ": " + settings;
    }

    /**
     * Blocks until something is offered to this rank (RMA lands at the target's poll here, as software RMA does), or
     * returns at once while items it holds back or has on the wire wait for polls.
     */
    @Override
    public boolean awaitActivity(long nanos) {
        return inbox.size() > 0 || inbox.awaitArrival(nanos);
    }

    /** For tests: items waiting in this rank's inbox (arrived or pending); exact only when nothing moves. */
    int pendingItems() {
        return inbox.size();
    }

    /** For tests: send buffers of the path to {@code target} on {@code channel} not in their pool now. */
    int framesInUse(int target, int channel) {
        return framePool(target, channel).inUse();
    }
}
