package org.gexj.ofi;

import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.PeerFailedException;
import org.gexj.ofi.ffm.FiCm;
import org.gexj.ofi.ffm.FiDomain;
import org.gexj.ofi.ffm.FiEndpoint;
import org.gexj.ofi.ffm.FiEq;
import org.gexj.ofi.ffm.FiErrno;
import org.gexj.ofi.ffm.FiRma;
import org.gexj.ofi.ffm.Fabric;
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
import java.util.concurrent.locks.ReentrantLock;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * GEX/J over one libfabric RDM endpoint ({@code GEX_CONDUIT=ofi}); see the module README for the design and the
 * settings ({@link OfiSettings}).
 *
 * <p><b>AM frames.</b> {@link #claim} hands out a registered send buffer and reserves credits toward the target's
 * channel; {@link #commit} prefixes the {@link OfiHeaderFlyweight header} (with the credits this rank owes the target)
 * and sends with {@code fi_inject} when the message fits the provider's inject size (the buffer is free at once), else
 * with {@code fi_send} (free at its completion). A frame the endpoint refuses for now ({@code -FI_EAGAIN}: verbs;ofi_rxm
 * does while the target does not poll) waits in a backlog per target, sent again by the next poll or claim, and until
 * it has gone the target's path is full: commit never waits, and an IMMEDIATE send finds the path back-pressured at
 * claim. Frames land in {@code FI_MULTI_RECV} buffers that are reposted as
 * soon as the provider releases them and their frames have been delivered (or deferred, see {@link OfiDeferred}).
 * A receiver returns credits on its own frames, or in a credit message once it owes an eighth of a window or finds
 * nothing else to do, so a flood never overruns the receive buffers, which are sized from the credits.
 *
 * <p><b>RMA</b> ({@link OfiRmaTransport}): {@code fi_write}, {@code fi_read} and {@code fi_writedata} on the
 * registered segments, in chunks of the provider's largest message. The remote CQ data of a put-with-immediate
 * carries the initiator's rank in its high 32 bits and the AM layer's 32-bit tag in its low ones; where the provider's
 * CQ data has only 32 bits it carries the tag alone, and the AM layer takes the source from the tag (no source
 * address is asked of the provider: verbs;ofi_rxm reports rank 0 as the source of every remote write). Below 32 bits
 * no immediate is offered (the AM layer then uses put-sync-send). Heap memory ({@code MemorySegment.ofArray}) cannot be
 * registered or handed to libfabric (the garbage collector moves it): an operation on it is staged through one of
 * {@link #BOUNCE_BUFFERS} registered bounce buffers of {@link #BOUNCE_BYTES}, one chunk at a time (a put copies each
 * chunk in before its write, a get copies each out after its read, before the next chunk or the completion), and
 * counted in {@link #counters()}.
 *
 * <p><b>Progress</b> is manual, driven by {@link #poll}. A frame refused for {@code GEX_OFI_TIMEOUT} while this rank
 * polls on, or a send that completes in error, fails the job naming the peer.
 *
 * <p>Threads (any thread may call, as the SPI requires): one lock serialises the endpoint ({@code FI_THREAD_DOMAIN})
 * and guards the send slots, credits, backlog, RMA operations ({@link OfiOperations}), bounce buffers, counters and
 * the deferred RMA completions; any thread may claim, commit, abort and start RMA. {@link #poll} is
 * called by one thread at a time (the core's poll lock), which alone uses the completion entries read ahead and the
 * deferred frames and remote writes ({@link OfiDeferred}). The lock is never held while a listener runs, so handlers
 * may send. The few fields a poll reads without the lock to skip work are volatile, written under it.
 *
 * <p><b>Close</b> may run while other threads still call in: from its start every section that calls into libfabric
 * checks for it under the lock and throws {@link IllegalStateException}, the close alone drains (its RMA operations,
 * then CLOSE to every peer) and tears the fabric down under the lock, and the memory a running poll reads is freed
 * when that poll ends.
 */
final class OfiConduit implements Conduit {
    /** Bytes of the context passed with each operation: an {@code fi_context2}, enough for either context mode. */
    private static final int CONTEXT_BYTES = 64;
    private static final int CQ_BATCH = 32;
    private static final long PAGE = SegmentRules.PAGE_SIZE;
    private static final long SEGMENT_KEY = 1;
    private static final long FIRST_DYNAMIC_KEY = 2;
    /** Longest a close waits for its peers' CLOSE messages (a peer that died needs no answer). */
    private static final long CLOSE_TIMEOUT_NS = 10_000_000_000L;
    /** How long a close after a failure waits for sends in flight to complete. */
    private static final long SETTLE_NS = 1_000_000_000L;
    /** Bytes of one bounce buffer: the chunk in which an operation on heap memory moves. */
    static final int BOUNCE_BYTES = 64 * 1024;
    /** Bounce buffers of a rank: operations on heap memory beyond these are back-pressured until one completes. */
    static final int BOUNCE_BUFFERS = 8;
    /** How often polls look for peers that owe this rank something and stay silent ({@link #watchPeers}). */
    private static final long WATCH_NS = 10_000_000L;
    /** How long an error the provider attributes to no operation waits for the job to name a failed peer. */
    private static final long ATTRIBUTE_NS = 2_000_000_000L;

    private final int rank;
    private final int size;
    private final JobHealth health;
    private final Bootstrap bootstrap;
    private final OfiSettings settings;
    private final OfiFabric fabric;
    private final Capabilities capabilities;
    private final ReentrantLock lock = new ReentrantLock();
    private final Arena arena = Arena.ofShared();
    /** Set by gexrun: a failed job ends this process, which releases the endpoint then. */
    private final boolean processEndsOnFailure;
    private final MemorySegment ep;
    private final MemorySegment cq;
    private final MemorySegment sendFn;
    private final MemorySegment injectFn;
    private final MemorySegment recvMsgFn;
    private final MemorySegment cqReadFn;
    /** {@code fi_cq_readfrom} where the endpoint has {@code FI_SOURCE}, else null. */
    private final MemorySegment cqReadFromFn;
    /** The source of each entry read by {@link #fill} ({@code fi_addr_t}), when the provider names them. */
    private final MemorySegment entrySources;
    /** The source of the entry {@link #process} handles: its {@code fi_addr_t}, or -2 where none is known. */
    private long entrySource = NO_SOURCE;
    private static final long NO_SOURCE = -2;
    /** Messages dropped: from no endpoint of the job's address vector; malformed. */
    private long droppedForeign;
    private long droppedMalformed;
    /** Messages whose header names another rank than the AV entry the provider names as their source. */
    private long sourceMismatches;
    private final MemorySegment writeFn;
    private final MemorySegment readFn;
    private final MemorySegment writeDataFn;
    private final long[] peerAddress;
    private final boolean immediateInData;
    private final int immediateBits;

    // contexts: [0, sendSlots) send buffers, [sendSlots, sendSlots + receiveSlots) receive buffers, then RMA ops
    private final MemorySegment contexts;
    private final int sendSlots;
    private final int receiveSlots;

    // send buffers
    private final int slotBytes;
    private final MemorySegment sendMemory;
    private final UnsafeBuffer sendBuffer;
    private final MemorySegment sendDescriptor;
    private final int[] freeSend;
    private int freeSendCount;
    private final int[] slotTarget;
    private final int[] slotUnits;
    /** Bytes of the committed message in each send slot, header included. */
    private final int[] slotLength;
    // frames the endpoint refused for now (-FI_EAGAIN), per target in commit order: sent again by poll and claim
    private final int[] backlogNext;
    private final int[] backlogHead;
    private final int[] backlogTail;
    /** When each target's first backlogged frame was first refused. */
    private final long[] backlogSince;
    /** Frames in the backlogs; written under the lock, read without it by {@link #poll} to skip the backlog. */
    private volatile int backlogged;
    private final OfiHeaderFlyweight sendHeader = new OfiHeaderFlyweight();
    private final OfiHeaderFlyweight creditHeader = new OfiHeaderFlyweight();
    private final MemorySegment creditMessage;
    private final UnsafeBuffer creditBuffer;

    // receive buffers
    private final long receiveBufferBytes;
    private final MemorySegment receiveMemory;
    private final UnsafeBuffer receiveBuffer;
    private final MemorySegment receiveDescriptor;
    private final MemorySegment receiveMsg;
    private final MemorySegment receiveIov;
    private final OfiHeaderFlyweight receiveHeader = new OfiHeaderFlyweight();

    // credits, in units, by (peer << 1) | channel
    private final int windowUnits;
    private final int[] credits;
    private final int[] owed;

    // completion entries read but not yet processed (a handler's nested poll continues where its caller was)
    private final MemorySegment entries;
    /**
     * Where a close reads the completion queue: another thread's poll, begun before the close, may still be processing
     * its {@link #entries} (outside the lock), and with its own header flyweight.
     */
    private final MemorySegment closeEntries;
    private final OfiHeaderFlyweight closeHeader = new OfiHeaderFlyweight();
    private final MemorySegment errorEntry;
    private int entryHead;
    private int entryCount;
    private final OfiDeferred deferred;
    private UnsafeBuffer[] deliveryCopies = new UnsafeBuffer[0];
    private int deliveryDepth;
    /** Peers whose CLOSE arrived, also during ordinary polls before this rank's own close. */
    private final boolean[] closeHeard;

    private final OfiOperations operations;
    // bounce buffers for operations on heap memory, registered once
    private final MemorySegment bounceMemory;
    private final MemorySegment bounceDescriptor;
    /** Bytes an operation on heap memory moves per chunk: a bounce buffer, or less if the provider's messages are. */
    private final int bounceChunk;
    private final int[] freeBounce;
    private int freeBounceCount;
    private long stagedOperations;
    private long stagedBytes;
    private final OfiRmaTransport rma = new OfiRmaTransport(this);
    private long nextKey = FIRST_DYNAMIC_KEY;
    private volatile MemorySegment segment;
    private MemorySegment segmentDescriptor = MemorySegment.NULL;
    private long[] segmentBase;
    private long[] segmentSize;
    private long[] segmentKey;
    // liveness (poll thread only): a peer that owes this rank something and stays silent for GEX_OFI_TIMEOUT fails
    /** Peers heard from (a message, a remote write, an RMA completion) since the last look. */
    private final boolean[] heardFrom;
    /** Since when each peer has owed this rank something without being heard from. */
    private final long[] silentSince;
    private final int[] rmaInFlight;
    private long watchedAt;
    /**
     * Set by {@link #close()} before it sends its CLOSE messages: from then on only the close sends or reads the
     * completion queue. Every section that calls into libfabric takes the lock with {@link #lockOpen()}, which checks
     * this: nothing goes to a peer after this rank's CLOSE (within one process, shm maps a peer's region once for all
     * its ranks, and the peer unmaps it at its close once it has heard this rank's CLOSE).
     */
    private volatile boolean closing;
    /** Set under the lock by {@link #close()}, which tears the fabric down under it. */
    private volatile boolean closed;
    /** Polls running (nested ones in handlers counted): only the polling thread writes it. */
    private volatile int polling;
    /** The libfabric objects are closed; the memory, which a running poll may still read, is freed then or later. */
    private boolean fabricClosed;
    private boolean memoryFreed;

    private OfiConduit(ConduitContext context) {
        this.rank = context.rank();
        this.size = context.size();
        this.health = context.health();
        this.bootstrap = context.bootstrap();
        this.settings = OfiSettings.from(context.config(), context.bootstrap().localAddress());
        this.processEndsOnFailure = context.config().getBoolean("GEX_EXIT_ON_FAILURE", false);
        final int frame = settings.frameLength();
        this.slotBytes = align(OfiHeaderFlyweight.LENGTH + frame, 64);
        this.windowUnits = (int) Math.min(Integer.MAX_VALUE / 4, settings.creditBytes() / OfiHeaderFlyweight.CREDIT_UNIT);
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
        this.sendSlots = settings.sendBuffers();
        final long cqSize = (long) sendSlots + settings.rmaOperations() + 2L * size * windowUnits + 1024;
        this.fabric = OfiFabric.open(settings, size, Math.min(cqSize, 1 << 20), slotBytes);
        boolean opened = false;
        try {
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
            final long cqData = Math.min(fabric.cqDataSize, settings.cqDataBytes());
            this.immediateInData = cqData >= Long.BYTES;
            this.immediateBits = cqData >= Integer.BYTES ? 32 : 0;

            this.contexts = arena.allocate((long) CONTEXT_BYTES * (sendSlots + receiveSlots
                + settings.rmaOperations()), 64);
            this.sendMemory = arena.allocate((long) slotBytes * sendSlots, PAGE);
            this.sendBuffer = new UnsafeBuffer(sendMemory.address(), (int) sendMemory.byteSize());
            this.freeSend = new int[sendSlots];
            for (int i = 0; i < sendSlots; i++) {
                freeSend[i] = sendSlots - 1 - i;
            }
            this.freeSendCount = sendSlots;
            this.slotTarget = new int[sendSlots];
            this.slotUnits = new int[sendSlots];
            this.slotLength = new int[sendSlots];
            this.backlogNext = new int[sendSlots];
            this.backlogHead = new int[size];
            this.backlogTail = new int[size];
            java.util.Arrays.fill(backlogHead, -1);
            this.backlogSince = new long[size];
            this.creditMessage = arena.allocate(64, 64);
            this.creditBuffer = new UnsafeBuffer(creditMessage.address(), (int) creditMessage.byteSize());
            this.receiveMemory = arena.allocate(receiveBufferBytes * receiveSlots, PAGE);
            this.receiveBuffer = new UnsafeBuffer(receiveMemory.address(), (int) receiveMemory.byteSize());
            this.receiveMsg = arena.allocate(FiEndpoint.FI_MSG_STRUCT);
            this.receiveIov = arena.allocate(FiEndpoint.IOVEC);
            final boolean local = fabric.requires(Fabric.FI_MR_LOCAL);
            this.sendDescriptor = local ? FiDomain.descriptor(fabric.register(sendMemory, key(), true))
                : MemorySegment.NULL;
            this.receiveDescriptor = local ? FiDomain.descriptor(fabric.register(receiveMemory, key(), true))
                : MemorySegment.NULL;
            this.bounceMemory = arena.allocate((long) BOUNCE_BYTES * BOUNCE_BUFFERS, PAGE);
            this.bounceDescriptor = local ? FiDomain.descriptor(fabric.register(bounceMemory, key(), true))
                : MemorySegment.NULL;
            this.bounceChunk = (int) Math.min(BOUNCE_BYTES, fabric.maxMessageSize);
            this.freeBounce = new int[BOUNCE_BUFFERS];
            for (int i = 0; i < BOUNCE_BUFFERS; i++) {
                freeBounce[i] = BOUNCE_BUFFERS - 1 - i;
            }
            this.freeBounceCount = BOUNCE_BUFFERS;
            this.credits = new int[2 * size];
            java.util.Arrays.fill(credits, windowUnits);
            this.owed = new int[2 * size];
            this.entries = arena.allocate(FiEq.FI_CQ_DATA_ENTRY.byteSize() * CQ_BATCH, 8);
            this.closeEntries = arena.allocate(FiEq.FI_CQ_DATA_ENTRY.byteSize() * CQ_BATCH, 8);
            this.entrySources = arena.allocate(JAVA_LONG.byteSize() * CQ_BATCH, 8);
            this.errorEntry = arena.allocate(FiEq.FI_CQ_ERR_ENTRY);
            this.closeHeard = new boolean[size];
            this.heardFrom = new boolean[size];
            this.silentSince = new long[size];
            java.util.Arrays.fill(silentSince, System.nanoTime());
            this.rmaInFlight = new int[size];
            this.deferred = new OfiDeferred((int) Math.min(Integer.MAX_VALUE / 2, outstanding));
            this.operations = new OfiOperations(settings.rmaOperations());
            this.peerAddress = exchangeAddresses();
            for (int b = 0; b < receiveSlots; b++) {
                postReceive(b);
            }
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

    private long key() {
        return nextKey++;
    }

    private static int align(int n, int to) {
        return (n + to - 1) / to * to;
    }

    private static long align(long n, long to) {
        return (n + to - 1) / to * to;
    }

    private long[] exchangeAddresses() {
        final byte[][] blobs = bootstrap.allgather(OfiAddressCodec.encode(
            new OfiAddressCodec.Endpoint(fabric.provider, FiCm.getName(ep))));
        final long[] addresses = new long[size];
        try (Arena scratch = Arena.ofConfined()) {
            for (int r = 0; r < size; r++) {
                final OfiAddressCodec.Endpoint peer = OfiAddressCodec.decodeEndpoint(blobs[r], r);
                if (!peer.provider().equals(fabric.provider)) {
                    throw new OfiException("rank " + r + " chose libfabric provider " + peer.provider()
                        + " and rank " + rank + " chose " + fabric.provider + ": set GEX_OFI_PROVIDER for the job");
                }
                final MemorySegment name = scratch.allocate(Math.max(1, peer.name().length));
                MemorySegment.copy(peer.name(), 0, name, java.lang.foreign.ValueLayout.JAVA_BYTE, 0,
                    peer.name().length);
                addresses[r] = FiDomain.insertAddress(fabric.av, name);
            }
        }
        return addresses;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    private void ensureOpen() {
        if (closing) {
            throw closedException();
        }
    }

    private IllegalStateException closedException() {
        return new IllegalStateException("ofi conduit of rank " + rank + " is closed");
    }

    /**
     * Takes the lock of an open conduit. A call checks {@link #closing} first without the lock, and may wait for it
     * while {@link #close()} drains or tears the fabric down: checked again under it, so nothing native is touched
     * by anyone but the close afterwards.
     *
     * @throws IllegalStateException if the conduit is closing or closed (the lock is not held then)
     */
    private void lockOpen() {
        lock.lock();
        if (closing) {
            lock.unlock();
            throw closedException();
        }
    }

    /**
     * As {@link #lockOpen()} for what sends nothing to a peer (reposting a receive buffer): allowed while the close
     * drains, which needs the buffers, but not after its teardown.
     */
    private void lockUnclosed() {
        lock.lock();
        if (closed) {
            lock.unlock();
            throw closedException();
        }
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
        ensureOpen();
        checkTarget(target);
        if (channel != REQUEST && channel != REPLY) {
            throw new IllegalArgumentException("channel " + channel + " is neither REQUEST (0) nor REPLY (1)");
        }
        if (length < 0 || length > settings.frameLength()) {
            throw new IllegalArgumentException("frame length " + length + " outside [0, " + settings.frameLength()
                + "] (maxFrameLength, " + OfiSettings.FRAME + ")");
        }
        final int units = OfiHeaderFlyweight.units(OfiHeaderFlyweight.LENGTH + length);
        final int path = (target << 1) | channel;
        lockOpen();
        try {
            sendBacklog();
            // a frame still refused by the endpoint fills the path: an IMMEDIATE send fails here, not in commit
            if (freeSendCount == 0 || credits[path] < units || backlogHead[target] >= 0) {
                return NO_ROOM;
            }
            credits[path] -= units;
            final int slot = freeSend[--freeSendCount];
            slotTarget[slot] = target;
            slotUnits[slot] = units;
            claim.set(sendBuffer, slot * slotBytes + OfiHeaderFlyweight.LENGTH, length, target, channel, slot);
            return OK;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void commit(Claim claim) {
        final int slot = claimedSlot(claim);
        final int target = claim.target();
        final long length = OfiHeaderFlyweight.LENGTH + (long) claim.length();
        lock.lock();
        try {
            if (closing) {
                // a claim made before the close began: given back, for the close waits for every send slot
                credits[(target << 1) | claim.channel()] += slotUnits[slot];
                releaseSend(slot);
                throw closedException();
            }
            final int request = owed[target << 1];
            final int reply = owed[(target << 1) | 1];
            owed[target << 1] = 0;
            owed[(target << 1) | 1] = 0;
            sendHeader.wrap(sendBuffer, slot * slotBytes).write(OfiHeaderFlyweight.KIND_FRAME, claim.channel(), rank,
                request, reply);
            slotLength[slot] = (int) length;
            if (backlogHead[target] >= 0 || !send(slot)) {
                backlog(slot, target);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void abort(Claim claim) {
        // also while closing and after: nothing native, and the close waits for every send slot to come back
        final int slot = claimedSlot(claim);
        lock.lock();
        try {
            credits[(claim.target() << 1) | claim.channel()] += slotUnits[slot];
            releaseSend(slot);
        } finally {
            lock.unlock();
        }
    }

    private int claimedSlot(Claim claim) {
        final long slot = claim.handle();
        if (claim.buffer() != sendBuffer || slot < 0 || slot >= sendSlots) {
            throw new IllegalArgumentException("claim " + slot + " was not made by this ofi conduit");
        }
        return (int) slot;
    }

    private void releaseSend(int slot) {
        freeSend[freeSendCount++] = slot;
    }

    private long context(int slot) {
        return contexts.address() + (long) slot * CONTEXT_BYTES;
    }

    /**
     * Sends the committed message of {@code slot} (under the lock): {@code fi_inject} when it fits the inject size,
     * which frees the slot at once, else {@code fi_send}, which frees it at its completion.
     *
     * @return false if the endpoint refused it for now ({@code -FI_EAGAIN})
     */
    private boolean send(int slot) {
        final int target = slotTarget[slot];
        final long length = slotLength[slot];
        final long address = sendMemory.address() + (long) slot * slotBytes;
        final boolean inject = length <= fabric.injectSize;
        final long rc = inject
            ? FiEndpoint.inject(injectFn, ep, address, length, peerAddress[target])
            : FiEndpoint.send(sendFn, ep, address, length, sendDescriptor, peerAddress[target], context(slot));
        if (rc == -FiErrno.FI_EAGAIN) {
            return false;
        }
        if (rc != 0) {
            releaseSend(slot);
            failPeer(target, (inject ? "fi_inject" : "fi_send") + " to rank " + target + " failed: "
                + FiErrno.strerror((int) -rc) + " (" + rc + ")");
        }
        if (inject) {
            releaseSend(slot);
        }
        return true;
    }

    /** Queues a refused frame behind the target's others (under the lock). */
    private void backlog(int slot, int target) {
        backlogNext[slot] = -1;
        if (backlogHead[target] < 0) {
            backlogHead[target] = slot;
            backlogSince[target] = System.nanoTime();
        } else {
            backlogNext[backlogTail[target]] = slot;
        }
        backlogTail[target] = slot;
        backlogged++;
    }

    /**
     * Sends what the endpoint refused before, in order per target, as far as it now takes (under the lock). A target
     * whose first frame stays refused for {@code GEX_OFI_TIMEOUT} while this rank keeps progressing is unreachable:
     * the job fails naming it.
     */
    private void sendBacklog() {
        if (backlogged == 0) {
            return;
        }
        for (int target = 0; target < size; target++) {
            int slot;
            while ((slot = backlogHead[target]) >= 0) {
                if (!send(slot)) {
                    if (System.nanoTime() - backlogSince[target] > settings.timeoutNanos()) {
                        failPeer(target, "rank " + target + " unreachable over ofi (" + fabric.provider + "): the"
                            + " endpoint refused a message to it for " + settings.timeoutNanos() / 1_000_000_000L
                            + " s (" + OfiSettings.TIMEOUT + ")");
                    }
                    break;
                }
                backlogHead[target] = backlogNext[slot];
                backlogSince[target] = System.nanoTime();
                backlogged--;
            }
        }
    }

    /**
     * Every {@link #WATCH_NS} of polling: a peer that owes this rank something — credits for frames sent to it, which
     * it returns once it has taken them, or completions of RMA chunks in flight to it — and from which nothing came
     * for {@code GEX_OFI_TIMEOUT} is unreachable (a partition: over tcp;ofi_rxm the kernel retransmits for minutes
     * before libfabric reports anything), and the job fails naming it. A peer that owes nothing may be silent for ever.
     * Owed credits are returned at each look, however few, so that a peer busy with others never waits on them.
     */
    private void watchPeers() {
        final long now = System.nanoTime();
        if (now - watchedAt < WATCH_NS) {
            return;
        }
        watchedAt = now;
        int unreachable = -1;
        lock.lock();
        try {
            java.util.Arrays.fill(rmaInFlight, 0);
            for (int op = 0; op < operations.capacity; op++) {
                if (operations.outstanding[op] > 0) {
                    rmaInFlight[operations.peer[op]]++;
                }
            }
            for (int p = 0; p < size; p++) {
                final boolean owes = credits[p << 1] < windowUnits || credits[(p << 1) | 1] < windowUnits
                    || rmaInFlight[p] > 0;
                if (p == rank || heardFrom[p] || !owes) {
                    heardFrom[p] = false;
                    silentSince[p] = now;
                } else if (unreachable < 0 && now - silentSince[p] > settings.timeoutNanos()) {
                    unreachable = p;
                }
            }
        } finally {
            lock.unlock();
        }
        if (unreachable >= 0) {
            failPeer(unreachable, "rank " + unreachable + " unreachable over ofi (" + fabric.provider + "): nothing"
                + " came from it for " + settings.timeoutNanos() / 1_000_000_000L + " s while it owed this rank credits"
                + " or RMA completions (" + OfiSettings.TIMEOUT + ")");
        }
        returnCredits(true);
    }

    private void failPeer(int peer, String reason) {
        health.fail(peer, reason);
        throw new PeerFailedException(peer, reason);
    }

    // ------------------------------------------------------------------------------------------------- receiving

    private void postReceive(int buffer) {
        final long base = receiveMemory.address() + buffer * receiveBufferBytes;
        // pointers written as addresses: a segment per pointer would allocate at every repost
        receiveIov.set(JAVA_LONG, FiEndpoint.IOV_BASE, base);
        receiveIov.set(JAVA_LONG, FiEndpoint.IOV_LEN, receiveBufferBytes);
        receiveMsg.set(JAVA_LONG, FiEndpoint.MSG_IOV, receiveIov.address());
        receiveMsg.set(JAVA_LONG, FiEndpoint.MSG_DESC, receiveDescriptor.equals(MemorySegment.NULL)
            ? 0L : descriptorArray().address());
        receiveMsg.set(JAVA_LONG, FiEndpoint.MSG_IOV_COUNT, 1);
        receiveMsg.set(JAVA_LONG, FiEndpoint.MSG_ADDR, FiEndpoint.FI_ADDR_UNSPEC);
        receiveMsg.set(JAVA_LONG, FiEndpoint.MSG_CONTEXT, context(sendSlots + buffer));
        long deadline = 0;
        long rc;
        while ((rc = FiEndpoint.recvMsg(recvMsgFn, ep, receiveMsg, Fabric.FI_MULTI_RECV)) == -FiErrno.FI_EAGAIN) {
            if (deadline == 0) {
                deadline = System.nanoTime() + settings.timeoutNanos();
            } else if (System.nanoTime() - deadline > 0) {
                throw new OfiException("fi_recvmsg", (int) rc, "the endpoint stayed busy for "
                    + settings.timeoutNanos() / 1_000_000_000L + " s");
            }
            FiEq.read(cqReadFn, cq, entries, 0);
        }
        FiErrno.check("fi_recvmsg(FI_MULTI_RECV)", rc);
    }

    private MemorySegment descriptorArray;

    /** The one-element {@code void *desc[]} of the receive message. */
    private MemorySegment descriptorArray() {
        if (descriptorArray == null) {
            descriptorArray = arena.allocate(ADDRESS);
            descriptorArray.set(ADDRESS, 0, receiveDescriptor);
        }
        return descriptorArray;
    }

    /**
     * Delivers deferred items the mask now allows, then completion-queue entries: frames and remote writes of the
     * polled channels, completions of this rank's RMA operations and sends. Items of a channel not polled are
     * deferred. Sends a credit message to every peer owed enough credits.
     */
    @Override
    public int poll(ConduitListener listener, int channelMask, int limit) {
        // counted before the check: a close that this poll does not see defers freeing the memory it reads
        polling++;
        try {
            ensureOpen();
            if (backlogged > 0) {
                lockOpen();
                try {
                    sendBacklog();
                } finally {
                    lock.unlock();
                }
            }
            int delivered = deliverDeferred(listener, channelMask, limit);
            boolean read = false;
            while (delivered < limit) {
                if (entryHead == entryCount) {
                    if (read || !fill()) {
                        break;
                    }
                    read = true;
                }
                final int entry = entryHead++;
                entrySource = cqReadFromFn != null ? entrySources.get(JAVA_LONG, entry * JAVA_LONG.byteSize())
                    : NO_SOURCE;
                delivered += process(entry, listener, channelMask);
            }
            returnCredits(delivered == 0);
            watchPeers();
            resumeOperations();
            return delivered;
        } finally {
            if (--polling == 0 && closed) {
                freeMemoryAfterPoll();
            }
        }
    }

    /** Reads a batch of completions into the entry array. @return false if none */
    private boolean fill() {
        final String unattributed;
        lockOpen();
        try {
            final long n = cqReadFromFn != null ? FiEq.readFrom(cqReadFromFn, cq, entries, CQ_BATCH, entrySources)
                : FiEq.read(cqReadFn, cq, entries, CQ_BATCH);
            if (n > 0) {
                entryHead = 0;
                entryCount = (int) n;
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
            lock.unlock();
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

    /** @return 1 if a frame, remote write or RMA completion was delivered, else 0 */
    private int process(int entry, ConduitListener listener, int mask) {
        final long at = entry * FiEq.FI_CQ_DATA_ENTRY.byteSize();
        final long flags = entries.get(JAVA_LONG, at + FiEq.ENTRY_FLAGS);
        if ((flags & Fabric.FI_REMOTE_CQ_DATA) != 0) {
            // the conduit never sends messages with CQ data: this is a remote write, whatever other flags a provider
            // sets (one that lands it through a posted receive may add FI_RECV, and release that buffer with it)
            final long data = entries.get(JAVA_LONG, at + FiEq.ENTRY_DATA);
            final int source = immediateInData ? (int) (data >>> 32) : ConduitListener.SOURCE_UNKNOWN;
            if (source >= 0 && source < size) {
                heardFrom[source] = true;
            }
            final long immediate = data & 0xFFFF_FFFFL;
            if ((flags & Fabric.FI_MULTI_RECV) != 0) {
                repostReleased(entries.get(JAVA_LONG, at + FiEq.ENTRY_OP_CONTEXT));
            }
            if ((mask & (1 << REQUEST)) == 0) {
                deferred.deferWrite(source, immediate);
                return 0;
            }
            listener.onRemoteWrite(source, immediate);
            return 1;
        }
        final long context = entries.get(JAVA_LONG, at + FiEq.ENTRY_OP_CONTEXT);
        final long slot = (context - contexts.address()) / CONTEXT_BYTES;
        if (context < contexts.address() || slot >= sendSlots + receiveSlots + operations.capacity) {
            return 0; // no operation of ours (a provider's own event)
        }
        if (slot >= sendSlots && slot < sendSlots + receiveSlots) {
            // a message in a receive buffer, and/or its release (shm reports the release alone, without FI_RECV)
            final int buffer = (int) (slot - sendSlots);
            final int length = (int) Math.min(entries.get(JAVA_LONG, at + FiEq.ENTRY_LEN), slotBytes);
            final int offset = (int) (entries.get(JAVA_LONG, at + FiEq.ENTRY_BUF) - receiveMemory.address());
            if ((flags & Fabric.FI_MULTI_RECV) == 0) {
                return length > 0 ? received(receiveBuffer, offset, length, listener, mask) : 0;
            }
            // the last message of a released buffer is delivered from a copy, so that the buffer is posted again
            // before its handler runs: a handler that waits for room polls on, and needs both buffers posted
            UnsafeBuffer copy = null;
            if (length > 0) {
                copy = deliveryCopy(deliveryDepth);
                copy.putBytes(0, receiveBuffer, offset, length);
            }
            lockUnclosed();
            try {
                postReceive(buffer);
            } finally {
                lock.unlock();
            }
            if (copy == null) {
                return 0;
            }
            deliveryDepth++;
            try {
                return received(copy, 0, length, listener, mask);
            } finally {
                deliveryDepth--;
            }
        }
        if (slot < sendSlots) {
            lock.lock();
            try {
                releaseSend((int) slot);
            } finally {
                lock.unlock();
            }
            return 0;
        }
        return rmaCompleted((int) (slot - sendSlots - receiveSlots), OK, listener, mask);
    }

    /** Reposts the receive buffer whose context a completion carrying {@code FI_MULTI_RECV} names, if it is one. */
    private void repostReleased(long context) {
        final long slot = (context - contexts.address()) / CONTEXT_BYTES;
        if (context >= contexts.address() && slot >= sendSlots && slot < sendSlots + receiveSlots) {
            lockUnclosed();
            try {
                postReceive((int) (slot - sendSlots));
            } finally {
                lock.unlock();
            }
        }
    }

    /** A message landed at {@code offset} of the receive memory. */
    private int received(UnsafeBuffer buffer, int offset, int length, ConduitListener listener, int mask) {
        if (entrySource == FiEq.FI_ADDR_NOTAVAIL) {
            // an endpoint outside the job's address vector: whatever it says, nothing of it is used
            if (droppedForeign++ == 0) {
                System.err.println("gex: ofi rank " + rank + " dropped a message from an endpoint outside the job"
                    + " (counted as ofi.dropped.foreign; only the first is reported)");
            }
            return 0;
        }
        final OfiHeaderFlyweight header = receiveHeader.wrap(buffer, offset);
        final String malformed = header.validate(length, size);
        if (malformed != null) {
            droppedMalformed++;
            System.err.println("gex: ofi rank " + rank + " dropped a message: " + malformed);
            return 0;
        }
        final int source = header.source();
        if (entrySource != NO_SOURCE && entrySource != peerAddress[source]) {
            // counted, not dropped: udp;ofi_rxd names another entry of the AV than the sender's for every message
            sourceMismatches++;
        }
        heardFrom[source] = true;
        if (header.requestCredits() != 0 || header.replyCredits() != 0) {
            lock.lock();
            try {
                credits[source << 1] += header.requestCredits();
                credits[(source << 1) | 1] += header.replyCredits();
            } finally {
                lock.unlock();
            }
        }
        if (header.kind() != OfiHeaderFlyweight.KIND_FRAME) {
            if (header.kind() == OfiHeaderFlyweight.KIND_CLOSE) {
                closeHeard[source] = true; // a peer closing before this rank started to: counted by its close
                // its final barrier is behind it: a wait of this rank's that needs it ends after the core's grace,
                // now and not when the launcher hears of it, which is only after that peer's close has ended
                health.peerClosed(source);
            }
            return 0;
        }
        final int channel = header.channel();
        final int frameLength = length - OfiHeaderFlyweight.LENGTH;
        if ((mask & (1 << channel)) == 0) {
            deferred.deferFrame(channel, source, buffer, offset + OfiHeaderFlyweight.LENGTH, frameLength);
            return 0;
        }
        owe(source, channel, length);
        listener.onFrame(channel, buffer, offset + OfiHeaderFlyweight.LENGTH, frameLength);
        return 1;
    }

    private void owe(int source, int channel, int messageLength) {
        lock.lock();
        try {
            owed[(source << 1) | channel] += OfiHeaderFlyweight.units(messageLength);
        } finally {
            lock.unlock();
        }
    }

    private int deliverDeferred(ConduitListener listener, int mask, int limit) {
        if (deferred.isEmpty() && !deferred.mayHaveCompletion()) {
            return 0;
        }
        int delivered = 0;
        int channel;
        while (delivered < limit && (channel = deferred.nextFrameChannel()) >= 0 && (mask & (1 << channel)) != 0) {
            final int source = deferred.nextFrameSource();
            final int length = deferred.nextFrameLength();
            // delivered from a copy of its own: a handler's nested poll may defer more frames and move the store
            final UnsafeBuffer copy = deliveryCopy(deliveryDepth);
            copy.putBytes(0, deferred.frameBuffer(), deferred.nextFrameOffset(), length);
            deferred.popFrame();
            owe(source, channel, length + OfiHeaderFlyweight.LENGTH);
            deliveryDepth++;
            try {
                listener.onFrame(channel, copy, 0, length);
            } finally {
                deliveryDepth--;
            }
            delivered++;
        }
        while (delivered < limit && (mask & (1 << REQUEST)) != 0 && deferred.hasWrite()) {
            final int source = deferred.writeSource();
            final long immediate = deferred.writeImmediate();
            deferred.popWrite();
            listener.onRemoteWrite(source, immediate);
            delivered++;
        }
        while (delivered < limit && (mask & (1 << REPLY)) != 0 && deferred.mayHaveCompletion()) {
            final long operation;
            final int status;
            lock.lock(); // pushed by any thread that starts an operation with nothing to move
            try {
                if (!deferred.hasCompletion()) {
                    break;
                }
                operation = deferred.completionOperation();
                status = deferred.completionStatus();
                deferred.popCompletion();
            } finally {
                lock.unlock();
            }
            listener.onRmaCompletion(operation, status);
            delivered++;
        }
        return delivered;
    }

    /**
     * A message-sized buffer for delivering a copied frame (deferred, or the last of a released receive buffer) at
     * handler nesting {@code depth}, made on first use.
     */
    private UnsafeBuffer deliveryCopy(int depth) {
        if (depth >= deliveryCopies.length) {
            deliveryCopies = java.util.Arrays.copyOf(deliveryCopies, depth + 1);
        }
        if (deliveryCopies[depth] == null) {
            deliveryCopies[depth] = new UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(slotBytes));
        }
        return deliveryCopies[depth];
    }

    /** Sends owed credits alone to peers owed an eighth of a window, or any when this poll found nothing to do. */
    private void returnCredits(boolean idle) {
        final int threshold = idle ? 1 : Math.max(1, windowUnits / 8);
        lockOpen();
        try {
            for (int peer = 0; peer < size; peer++) {
                final int request = owed[peer << 1];
                final int reply = owed[(peer << 1) | 1];
                if (request < threshold && reply < threshold) {
                    continue;
                }
                creditHeader.wrap(creditBuffer, 0).write(OfiHeaderFlyweight.KIND_CREDIT, 0, rank, request,
                    reply);
                final long rc = FiEndpoint.inject(injectFn, ep, creditMessage.address(), OfiHeaderFlyweight.LENGTH,
                    peerAddress[peer]);
                if (rc == 0) {
                    owed[peer << 1] -= request;
                    owed[(peer << 1) | 1] -= reply;
                } else if (rc != -FiErrno.FI_EAGAIN) {
                    failPeer(peer, "fi_inject of credits to rank " + peer + " failed: "
                        + FiErrno.strerror((int) -rc) + " (" + rc + ")");
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Reads the completion queue's error entry and acts on it.
     *
     * @return null, or the error's text if it belongs to no operation of this rank ({@link #unattributedError})
     */
    private String readError() {
        if (FiEq.readError(cq, errorEntry) != 1) {
            return null;
        }
        final long context = errorEntry.get(ADDRESS, FiEq.ERR_OP_CONTEXT).address();
        final String text = FiEq.strerror(cq, errorEntry) + " (" + errorEntry.get(java.lang.foreign.ValueLayout.JAVA_INT,
            FiEq.ERR_ERR) + ")";
        final long slot = (context - contexts.address()) / CONTEXT_BYTES;
        if (context < contexts.address() || slot >= sendSlots + receiveSlots + operations.capacity) {
            return text;
        }
        if (slot < sendSlots) {
            releaseSend((int) slot);
            failPeer(slotTarget[(int) slot], "a send to rank " + slotTarget[(int) slot] + " failed over ofi ("
                + fabric.provider + "): " + text);
        }
        if (slot < sendSlots + receiveSlots) {
            if (!closed) {
                throw new OfiException("a receive buffer of rank " + rank + " failed: " + text);
            }
            return null;
        }
        final int op = (int) (slot - sendSlots - receiveSlots);
        operations.status[op] = RmaTransport.FAILED;
        failChunk(op);
        return null;
    }

    // ------------------------------------------------------------------------------------------------- RMA

    @Override
    public RmaTransport rma() {
        return rma;
    }

    /**
     * Starts an RMA operation: checks it, takes a slot (and a bounce buffer for heap memory) and submits as many
     * chunks as the endpoint takes now. A call that throws has started nothing and holds nothing.
     *
     * @return {@link #OK}, or {@link #NO_ROOM} with nothing started
     */
    int startRma(int kind, int peer, long remoteOffset, MemorySegment local, long localOffset, long nbytes,
                 long immediate, long operation) {
        ensureOpen();
        checkTarget(peer);
        RmaTransport.checkRanges("ofi", rank, segmentSize, peer, remoteOffset, local, localOffset, nbytes);
        if (kind == OfiOperations.PUT_IMMEDIATE && nbytes > fabric.maxMessageSize) {
            throw new IllegalArgumentException("put with immediate of " + nbytes + " bytes: the provider's largest"
                + " message is " + fabric.maxMessageSize);
        }
        // heap memory moves and cannot be registered: it is staged through a bounce buffer
        final boolean staged = nbytes > 0 && !local.isNative();
        lockOpen();
        try {
            if (staged && freeBounceCount == 0) {
                return NO_ROOM;
            }
            final int slot = operations.take();
            if (slot < 0) {
                return NO_ROOM;
            }
            operations.kind[slot] = kind;
            operations.peer[slot] = peer;
            operations.operation[slot] = operation;
            operations.remoteAddress[slot] = (fabric.requires(Fabric.FI_MR_VIRT_ADDR) ? segmentBase[peer] : 0)
                + remoteOffset;
            operations.key[slot] = segmentKey[peer];
            operations.immediate[slot] = (immediateInData ? (long) rank << 32 : 0) | (immediate & 0xFFFF_FFFFL);
            operations.total[slot] = nbytes;
            operations.submitted[slot] = 0;
            operations.outstanding[slot] = 0;
            operations.status[slot] = OK;
            if (nbytes == 0 && kind != OfiOperations.PUT_IMMEDIATE) {
                // nothing to move: reported by the next poll (under the lock: any thread may get here)
                deferred.deferCompletion(operation, OK);
                operations.release(slot);
                return OK;
            }
            try {
                if (staged) {
                    final int b = freeBounce[--freeBounceCount];
                    operations.bounce[slot] = b;
                    operations.heap[slot] = local;
                    operations.heapOffset[slot] = localOffset;
                    operations.localAddress[slot] = bounceMemory.address() + (long) b * BOUNCE_BYTES;
                    operations.descriptor[slot] = bounceDescriptor;
                    stagedOperations++;
                } else {
                    final long address = nbytes == 0 ? (local == null ? 0 : local.address())
                        : local.address() + localOffset;
                    operations.localAddress[slot] = address;
                    operations.descriptor[slot] = localDescriptor(slot, address, nbytes);
                }
                if (!submit(slot) && operations.outstanding[slot] == 0) {
                    releaseOperation(slot);
                    return NO_ROOM;
                }
            } catch (RuntimeException | Error e) {
                if (operations.outstanding[slot] == 0) {
                    releaseOperation(slot); // nothing reached the provider: the caller's exception is all there is
                    throw e;
                }
                // chunks are in flight: the operation completes with them, failed, and submits nothing more
                operations.status[slot] = RmaTransport.FAILED;
                operations.total[slot] = operations.submitted[slot];
                if (e instanceof Error error) {
                    throw error;
                }
                System.err.println("gex: ofi rank " + rank + " failed an RMA operation to rank " + peer + " part way: "
                    + e);
                return OK;
            }
            if (needsResume(slot)) {
                operations.queueResume(slot);
            }
            return OK;
        } finally {
            lock.unlock();
        }
    }

    /** Whether an operation has chunks to submit that only {@link #resumeOperations} will (under the lock). */
    private boolean needsResume(int slot) {
        // a staged operation has one chunk in flight at most: its completion submits the next one
        return operations.waiting(slot) && (!operations.staged(slot) || operations.outstanding[slot] == 0);
    }

    /** Frees an operation's slot, its own registration and its bounce buffer (under the lock). */
    private void releaseOperation(int slot) {
        closeOwnRegistration(slot);
        if (operations.staged(slot)) {
            freeBounce[freeBounceCount++] = operations.bounce[slot];
        }
        operations.release(slot);
    }

    /**
     * Submits chunks of the operation until all are submitted or the endpoint is busy; a staged operation submits one
     * chunk, copied into its bounce buffer first for a put (under the lock).
     *
     * @return false if the endpoint was busy before the last chunk
     */
    private boolean submit(int slot) {
        final boolean staged = operations.staged(slot);
        final long max = staged ? bounceChunk : fabric.maxMessageSize;
        final int kind = operations.kind[slot];
        final int peer = operations.peer[slot];
        final long context = context(sendSlots + receiveSlots + slot);
        do {
            final long offset = operations.submitted[slot];
            final long chunk = Math.min(max, operations.total[slot] - offset);
            final long local = operations.localAddress[slot] + (staged ? 0 : offset);
            if (staged && kind != OfiOperations.GET) {
                MemorySegment.copy(operations.heap[slot], operations.heapOffset[slot] + offset, bounceMemory,
                    local - bounceMemory.address(), chunk);
            }
            final long remote = operations.remoteAddress[slot] + offset;
            // a put with immediate carries it on its last chunk (staged, the chunks before it are plain writes, all
            // complete before the last is submitted, so the target sees the immediate after every byte)
            final boolean data = kind == OfiOperations.PUT_IMMEDIATE && offset + chunk == operations.total[slot];
            final long rc = data
                ? FiRma.writeData(writeDataFn, ep, local, chunk, operations.descriptor[slot],
                    operations.immediate[slot], peerAddress[peer], remote, operations.key[slot], context)
                : FiRma.transfer(kind == OfiOperations.GET ? readFn : writeFn, ep, local, chunk,
                    operations.descriptor[slot], peerAddress[peer], remote, operations.key[slot], context);
            if (rc == -FiErrno.FI_EAGAIN) {
                return false;
            }
            if (rc != 0) {
                throw new OfiException((data ? "fi_writedata" : kind == OfiOperations.GET ? "fi_read" : "fi_write")
                    + " to rank " + peer, (int) rc, FiErrno.strerror((int) -rc));
            }
            operations.submitted[slot] = offset + chunk;
            operations.outstanding[slot]++;
            if (staged) {
                stagedBytes += chunk;
            }
        } while (operations.waiting(slot) && !staged);
        return true;
    }

    /** Submits the chunks that found the endpoint busy, oldest operation first. */
    private void resumeOperations() {
        if (!operations.mayResume()) {
            return;
        }
        lockOpen();
        try {
            int slot;
            while ((slot = operations.peekResume()) >= 0) {
                try {
                    if (!submit(slot)) {
                        return;
                    }
                } catch (OfiException e) {
                    failUnsubmitted(slot, e);
                }
                operations.popResume();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The provider refused a chunk of an operation for good: it submits nothing more and completes failed, now if no
     * chunk of it is in flight (through the deferred completions), else with its last one (under the lock).
     */
    private void failUnsubmitted(int slot, OfiException e) {
        System.err.println("gex: ofi rank " + rank + " failed an RMA operation to rank " + operations.peer[slot] + ": "
            + e.getMessage());
        operations.status[slot] = RmaTransport.FAILED;
        operations.total[slot] = operations.submitted[slot];
        if (operations.outstanding[slot] == 0) {
            deferred.deferCompletion(operations.operation[slot], RmaTransport.FAILED);
            releaseOperation(slot);
        }
    }

    /**
     * One chunk of {@code op} completed: a staged get copies it out of the bounce buffer, a staged operation submits
     * its next chunk; at the last, the operation completes (now, or deferred).
     */
    private int rmaCompleted(int op, int status, ConduitListener listener, int mask) {
        lockUnclosed(); // a staged operation copies from its bounce buffer and submits its next chunk
        final long operation;
        final int finalStatus;
        try {
            if (closing) {
                closeChunk(op); // read before the close began: the drain waits for it, and it submits nothing more
                return 0;
            }
            heardFrom[operations.peer[op]] = true;
            if (status != OK) {
                operations.status[op] = status;
            }
            if (--operations.outstanding[op] > 0) {
                return 0;
            }
            if (operations.staged(op) ? stageNext(op) : operations.waiting(op)) {
                return 0;
            }
            operation = operations.operation[op];
            finalStatus = operations.status[op];
            releaseOperation(op); // before the listener, which may start the next operation in this slot
            if ((mask & (1 << REPLY)) == 0) {
                deferred.deferCompletion(operation, finalStatus);
                return 0;
            }
        } finally {
            lock.unlock();
        }
        listener.onRmaCompletion(operation, finalStatus);
        return 1;
    }

    /**
     * The chunk in flight of a staged operation completed (under the lock): a get copies it to the heap memory, then
     * the next chunk is submitted, or queued if the endpoint is busy.
     *
     * @return true if a chunk is on its way, false if the operation is complete (all moved, or failed)
     */
    private boolean stageNext(int op) {
        if (operations.status[op] != OK) {
            return false;
        }
        if (operations.kind[op] == OfiOperations.GET) {
            final long end = operations.submitted[op];
            final long start = (end - 1) / bounceChunk * bounceChunk;
            MemorySegment.copy(bounceMemory, operations.localAddress[op] - bounceMemory.address(), operations.heap[op],
                operations.heapOffset[op] + start, end - start);
        }
        if (!operations.waiting(op)) {
            return false;
        }
        try {
            if (!submit(op)) {
                operations.queueResume(op);
            }
        } catch (OfiException e) {
            System.err.println("gex: ofi rank " + rank + " failed an RMA operation to rank " + operations.peer[op]
                + ": " + e.getMessage());
            operations.status[op] = RmaTransport.FAILED;
            return false;
        }
        return true;
    }

    /**
     * A chunk completed in error (under the lock, in the poller's read of the completion queue): at the last chunk the
     * operation completes through the deferred completions, so that the listener runs at the next poll, outside the
     * lock. A staged operation submits nothing more.
     */
    private void failChunk(int op) {
        if (operations.staged(op)) {
            operations.total[op] = operations.submitted[op];
        }
        if (--operations.outstanding[op] > 0 || operations.waiting(op)) {
            return;
        }
        deferred.deferCompletion(operations.operation[op], operations.status[op]);
        releaseOperation(op);
    }

    /**
     * The descriptor of local memory for an operation: none where the provider needs no local registration, else
     * that of the segment if it contains the memory, else a registration made for this operation.
     */
    private MemorySegment localDescriptor(int slot, long address, long nbytes) {
        if (!fabric.requires(Fabric.FI_MR_LOCAL) || nbytes == 0) {
            return MemorySegment.NULL;
        }
        final MemorySegment seg = segment;
        if (seg != null && address >= seg.address() && address + nbytes <= seg.address() + seg.byteSize()) {
            return segmentDescriptor;
        }
        final MemorySegment mr = fabric.register(MemorySegment.ofAddress(address).reinterpret(nbytes), key(), false);
        operations.ownRegistration[slot] = mr;
        return FiDomain.descriptor(mr);
    }

    private void closeOwnRegistration(int slot) {
        final MemorySegment mr = operations.ownRegistration[slot];
        if (mr != null) {
            Fabric.close(mr, "memory region of one operation");
        }
    }

    // ------------------------------------------------------------------------------------------------- segments

    /**
     * Collective: allocates this rank's segment (page aligned, zeroed), registers it for remote access and exchanges
     * (address, size, key) with every rank in one allgather.
     */
    @Override
    public AttachedSegments attachSegment(long bytes) {
        ensureOpen();
        SegmentRules.checkAttach("ofi", rank, segment, bytes);
        final MemorySegment mine = arena.allocate(bytes, PAGE);
        final MemorySegment mr;
        lockOpen();
        try {
            mr = fabric.register(mine, SEGMENT_KEY, true);
        } finally {
            lock.unlock();
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
        segmentBase = base;
        segmentKey = keys;
        segmentDescriptor = FiDomain.descriptor(mr);
        segmentSize = sizes;
        segment = mine;
        return new AttachedSegments(mine, descriptors);
    }

    // ------------------------------------------------------------------------------------------------- close

    /**
     * Closes the endpoint and every libfabric object, newest first, then frees the memory. Idempotent. Unless the job
     * failed, first exchanges CLOSE messages with every peer while driving progress: with manual progress a message
     * this rank sent last (the final barrier's) may still sit in the provider, and it leaves only while this rank
     * polls.
     */
    @Override
    public void close() {
        closing = true;
        if (!closed && !health.failed()) {
            try {
                drainForClose();
            } catch (RuntimeException e) {
                System.err.println("gex: ofi rank " + rank + " closing without its peers' CLOSE: " + e);
            }
        } else if (!closed) {
            settleSends();
        }
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (health.failed() && processEndsOnFailure) {
                // verbs;ofi_rxm crashed (SIGSEGV) in fi_close of an endpoint that peers still sent to after a rank's
                // exit or abort; the process ends next, and the kernel releases the endpoint with it
                return;
            }
            final int sends = inFlight();
            if (sends > 0 || operations.inUse() > 0) {
                // verbs;ofi_rxm crashed (SIGSEGV) in fi_close of an endpoint with sends in flight, and the provider may
                // still write into posted buffers: the endpoint and its memory are left to the end of the process
                System.err.println("gex: ofi rank " + rank + " leaves its endpoint open: " + sends + " send(s) and "
                    + operations.inUse() + " RMA operation(s) still in flight");
                return;
            }
            fabricClosed = true;
            try {
                fabric.close();
            } finally {
                // a poll that began before the close may still read the receive buffers and completion entries (and
                // a handler the frame it runs for): their memory is freed when the last poll ends
                if (polling == 0) {
                    freeMemory();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** The end of the outermost poll of a closed conduit: frees the memory a close left to it. */
    private void freeMemoryAfterPoll() {
        lock.lock();
        try {
            if (fabricClosed && polling == 0) {
                freeMemory();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Frees the conduit's native memory once, after the fabric is closed (under the lock). */
    private void freeMemory() {
        if (!memoryFreed) {
            memoryFreed = true;
            arena.close();
        }
    }

    /** Sends handed to the provider and not yet completed (a backlogged frame has not been handed over). */
    private int inFlight() {
        return sendSlots - freeSendCount - backlogged;
    }

    /**
     * Sends CLOSE to every peer once this rank's RMA operations have completed (a peer closes once it has heard every
     * CLOSE, and then serves no operation), then progresses until all sends completed and every peer's CLOSE arrived.
     * Operations still in flight when the close began complete unreported; their chunks not yet submitted never are.
     */
    private void drainForClose() {
        final boolean[] sent = new boolean[size];
        final boolean[] heard = closeHeard;
        int toSend = size - 1;
        sent[rank] = true;
        heard[rank] = true;
        lock.lock();
        try {
            if (closed) {
                return; // closed meanwhile by another thread: its registrations are gone
            }
            abandonUnsubmitted();
        } finally {
            lock.unlock();
        }
        final long deadline = System.nanoTime() + Math.min(settings.timeoutNanos(), CLOSE_TIMEOUT_NS);
        // a failure meanwhile (a peer died, the launcher ended the job) ends the handshake: nobody needs it then
        while (System.nanoTime() - deadline < 0 && !health.failed()) {
            lock.lock();
            try {
                if (closed) {
                    return; // closed meanwhile by another thread (an abort racing this close)
                }
                // counted each time: another thread's poll, still running, may have taken a peer's CLOSE
                int toHear = 0;
                for (boolean h : heard) {
                    toHear += h ? 0 : 1;
                }
                if (toSend == 0 && toHear == 0 && freeSendCount == sendSlots && operations.inUse() == 0) {
                    return;
                }
                sendBacklog();
                for (int peer = 0; peer < size && toSend > 0 && operations.inUse() == 0; peer++) {
                    if (!sent[peer] && freeSendCount > 0 && backlogHead[peer] < 0) {
                        final int slot = freeSend[--freeSendCount];
                        slotTarget[slot] = peer;
                        sendHeader.wrap(sendBuffer, slot * slotBytes).write(OfiHeaderFlyweight.KIND_CLOSE, 0, rank,
                            0, 0);
                        final long rc = FiEndpoint.send(sendFn, ep, sendMemory.address() + (long) slot * slotBytes,
                            OfiHeaderFlyweight.LENGTH, sendDescriptor, peerAddress[peer], context(slot));
                        if (rc == 0) {
                            sent[peer] = true;
                            toSend--;
                        } else {
                            releaseSend(slot);
                            if (rc != -FiErrno.FI_EAGAIN) {
                                throw new OfiException("fi_send of CLOSE to rank " + peer, (int) rc,
                                    FiErrno.strerror((int) -rc));
                            }
                        }
                    }
                }
                final long n = FiEq.read(cqReadFn, cq, closeEntries, CQ_BATCH);
                if (n == -FiErrno.FI_EAVAIL) {
                    if (FiEq.readError(cq, errorEntry) == 1) {
                        final long slot = (errorEntry.get(JAVA_LONG, FiEq.ERR_OP_CONTEXT) - contexts.address())
                            / CONTEXT_BYTES;
                        if (slot >= 0 && slot < sendSlots) {
                            releaseSend((int) slot);
                        } else if (slot >= sendSlots + receiveSlots && slot < sendSlots + receiveSlots
                            + operations.capacity) {
                            closeChunk(slot - sendSlots - receiveSlots);
                        }
                    }
                }
                for (int i = 0; i < n; i++) {
                    closeEntry(closeEntries, i, heard);
                }
                if (polling == 0 && entryHead < entryCount) {
                    // what a poll read before the close and did not get to (a handler threw): the drain's now, as no
                    // poll runs or can start (polling is counted before the check for closing)
                    for (int i = entryHead; i < entryCount; i++) {
                        closeEntry(entries, i, heard);
                    }
                    entryHead = entryCount;
                }
            } finally {
                lock.unlock();
            }
            Thread.onSpinWait();
        }
    }

    /**
     * After a failure: waits a little for the sends the provider holds to complete before the endpoint closes.
     * verbs;ofi_rxm crashed (SIGSEGV in fi_close) closing an endpoint that still had sends in flight.
     */
    private void settleSends() {
        final long deadline = System.nanoTime() + SETTLE_NS;
        lock.lock();
        try {
            while (!closed && inFlight() > 0 && System.nanoTime() - deadline < 0) {
                final long n = FiEq.read(cqReadFn, cq, closeEntries, CQ_BATCH);
                if (n == -FiErrno.FI_EAVAIL && FiEq.readError(cq, errorEntry) == 1) {
                    final long slot = (errorEntry.get(JAVA_LONG, FiEq.ERR_OP_CONTEXT) - contexts.address())
                        / CONTEXT_BYTES;
                    if (slot >= 0 && slot < sendSlots) {
                        releaseSend((int) slot);
                    }
                }
                for (int i = 0; i < n; i++) {
                    final long context = closeEntries.get(JAVA_LONG, i * FiEq.FI_CQ_DATA_ENTRY.byteSize()
                        + FiEq.ENTRY_OP_CONTEXT);
                    final long slot = (context - contexts.address()) / CONTEXT_BYTES;
                    if (context >= contexts.address() && slot < sendSlots) {
                        releaseSend((int) slot);
                    }
                }
                Thread.onSpinWait();
            }
        } catch (RuntimeException e) {
            // the endpoint closes next whatever happened here
        } finally {
            lock.unlock();
        }
    }

    private void closeEntry(MemorySegment from, int entry, boolean[] heard) {
        final long at = entry * FiEq.FI_CQ_DATA_ENTRY.byteSize();
        final long context = from.get(JAVA_LONG, at + FiEq.ENTRY_OP_CONTEXT);
        final long flags = from.get(JAVA_LONG, at + FiEq.ENTRY_FLAGS);
        final long slot = (context - contexts.address()) / CONTEXT_BYTES;
        if (context < contexts.address() || slot >= sendSlots + receiveSlots + operations.capacity) {
            return;
        }
        if ((flags & Fabric.FI_REMOTE_CQ_DATA) != 0) {
            // a peer's remote write: nobody is told any more, but a receive buffer it released is posted again
            if ((flags & Fabric.FI_MULTI_RECV) != 0 && slot >= sendSlots && slot < sendSlots + receiveSlots) {
                postReceive((int) (slot - sendSlots));
            }
            return;
        }
        if (slot < sendSlots) {
            releaseSend((int) slot);
            return;
        }
        if (slot >= sendSlots + receiveSlots) {
            closeChunk(slot - sendSlots - receiveSlots);
            return;
        }
        final long length = from.get(JAVA_LONG, at + FiEq.ENTRY_LEN);
        if (length >= OfiHeaderFlyweight.LENGTH) {
            final int offset = (int) (from.get(JAVA_LONG, at + FiEq.ENTRY_BUF) - receiveMemory.address());
            final OfiHeaderFlyweight header = closeHeader.wrap(receiveBuffer, offset);
            if (header.validate((int) length, size) == null && header.kind() == OfiHeaderFlyweight.KIND_CLOSE
                && !heard[header.source()]) {
                heard[header.source()] = true;
            }
        }
        if ((flags & Fabric.FI_MULTI_RECV) != 0) {
            postReceive((int) (slot - sendSlots));
        }
    }

    /** At the close a chunk of an RMA operation completed: the operation ends, unreported, at its last (under lock). */
    private void closeChunk(long op) {
        if (operations.outstanding[(int) op] > 0 && --operations.outstanding[(int) op] == 0) {
            releaseOperation((int) op);
        }
    }

    /**
     * At the start of the close: operations that wait to submit chunks never will, and those with none in flight end
     * now, unreported (under the lock).
     */
    private void abandonUnsubmitted() {
        final boolean[] free = operations.freeSlots();
        for (int op = 0; op < operations.capacity; op++) {
            if (!free[op] && operations.outstanding[op] == 0) {
                releaseOperation(op);
            }
        }
        operations.clearResume();
    }

    /** Provider, domain and the limits that follow from it, printed by rank 0 at start-up. */
    @Override
    public String toString() {
        return "ofi conduit rank " + rank + " of " + size + ": provider " + fabric.provider + ", domain "
            + fabric.domainName + ", max message " + fabric.maxMessageSize + " B, inject " + fabric.injectSize
            + " B, CQ data " + fabric.cqDataSize + " B"
            + (settings.cqDataBytes() < fabric.cqDataSize ? " (" + settings.cqDataBytes() + " used)" : "")
            + ", mr_mode " + mrModeText() + ", frame "
            + settings.frameLength() + " B, credits " + windowUnits * OfiHeaderFlyweight.CREDIT_UNIT
            + " B per peer and channel, receive buffers " + receiveSlots + " x " + receiveBufferBytes + " B, immediate "
            + immediateBits + " bits";
    }

    private String mrModeText() {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment m = scratch.allocate(java.lang.foreign.ValueLayout.JAVA_INT);
            m.set(java.lang.foreign.ValueLayout.JAVA_INT, 0, fabric.mrMode);
            final String text = Fabric.toStr(m, Fabric.FI_TYPE_MR_MODE).trim();
            return text.isEmpty() ? "none" : text;
        }
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
        lock.lock();
        try {
            m.put("ofi.staged.operations", stagedOperations);
            m.put("ofi.staged.bytes", stagedBytes);
        } finally {
            lock.unlock();
        }
        // the polling thread's own counts, read racily (as udp's are)
        m.put("ofi.dropped.foreign", droppedForeign);
        m.put("ofi.dropped.malformed", droppedMalformed);
        m.put("ofi.source-mismatch", sourceMismatches);
        m.put("ofi.source-checked", fabric.sourceKnown ? 1L : 0L);
        return m;
    }

    /** For tests: credits toward {@code peer}'s {@code channel}, in units, and the window. */
    int credits(int peer, int channel) {
        lock.lock();
        try {
            return credits[(peer << 1) | channel];
        } finally {
            lock.unlock();
        }
    }

    int windowUnits() {
        return windowUnits;
    }

    String provider() {
        return fabric.provider;
    }
}
