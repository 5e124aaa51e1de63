package org.gexj.smp;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.Config;
import org.gexj.GexException;
import org.gexj.smp.ffm.UioH;
import org.gexj.smp.wire.ControlRegionFlyweight;
import org.gexj.smp.wire.FrameRingDescriptor;
import org.gexj.smp.wire.RegistrationTableFlyweight;
import org.gexj.spi.AttachedSegments;
import org.gexj.spi.Bootstrap;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.RegisteredAccess;
import org.gexj.spi.SegmentDescriptor;
import org.gexj.spi.SegmentRules;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The ranks of one host over shared memory. Every rank owns two many-to-one {@link FrameRing}s, one per channel,
 * in a file every rank maps: sending is a claim in the target's ring, receiving is reading one's own. Segments are
 * files mapped by every rank, so RMA and AM Long payloads are memory copies. The barrier is a line per rank in a
 * control region.
 *
 * <p>Files, all in /dev/shm with mode 0600, each unlinked by its creator as soon as every rank has mapped it, so
 * nothing is left behind by an exit or a crash after {@code open}:
 * <pre>
 *   &lt;jobId&gt;-ctl      created by rank 0   {@link ControlRegionFlyweight}: barrier epochs
 *   &lt;jobId&gt;-am-r     created by rank r   [REQUEST ring | trailer | pad][REPLY ring | trailer | pad], page aligned
 *   &lt;jobId&gt;-seg-r    created by rank r   rank r's segment, by {@link #attachSegment}
 * </pre>
 *
 * <p>Threads: {@link #claim}, {@link #commit} and {@link #abort} from any thread, each with its own {@link Claim} (the
 * rings are many-to-one);
 * {@link #poll}, {@link #attachSegment}, the barrier and {@link #close} from one thread at a time. The rings are raw
 * mapped memory, so close must not race with another thread's claim or poll.
 */
public final class SmpConduit implements Conduit {
    /** Capacity of each ring in bytes, a power of two; the ring's trailer comes on top. */
    public static final String RING_BYTES = "GEX_SMP_RING_BYTES";
    public static final long DEFAULT_RING_BYTES = 1L << 20;
    public static final long MIN_RING_BYTES = 64L << 10;
    public static final long MAX_RING_BYTES = 256L << 20;
    /**
     * Bytes this rank's frames may run ahead of a ring's reader before its sends wait (polling, so serving its own
     * rings meanwhile), unless fewer than {@link FrameRing#WINDOW_RECORDS} records of the frame's size are in flight.
     * Two ranks flooding each other with small frames then take turns, instead of each writing up to the whole ring,
     * which the other reads only after its own flood: testam's two-way flood of 1 KiB Longs (64-byte frames) took
     * 0.47-0.61 us per message with the 1 MiB ring as the window, 0.16-0.20 with 128 KiB (GASNet: 0.27-0.38).
     */
    public static final String RING_WINDOW = "GEX_SMP_RING_WINDOW";
    public static final long DEFAULT_RING_WINDOW = 128L << 10;
    public static final long MIN_RING_WINDOW = 1024;

    private static final long PAGE = SegmentRules.PAGE_SIZE;
    private static final long TABLE_BYTES = align(RegistrationTableFlyweight.length(), PAGE);
    /** Once a process: {@link FrameRing#primeWrapPaths}. */
    private static final AtomicBoolean PRIMED = new AtomicBoolean();

    private final int rank;
    private final int size;
    private final String jobId;
    private final Bootstrap bootstrap;
    private final Arena arena = Arena.ofShared();
    private final List<Path> ownFiles = new ArrayList<>();
    /** {@link #RING_WINDOW}, at most the ring's capacity. */
    private final int window;
    /** Every rank's rings, at {@code (rank << 1) | channel}. */
    private final FrameRing[] rings;
    private final FrameRing requestRing;
    private final FrameRing replyRing;
    private final ControlRegionFlyweight control = new ControlRegionFlyweight();
    /** Every rank's published registrations, mapped. */
    private final RegistrationTableFlyweight[] tables;
    private final SmpRegisteredAccess registered;
    private final Capabilities capabilities;
    private final FrameRing.FrameHandler requestReader = this::onRequest;
    private final FrameRing.FrameHandler replyReader = this::onReply;
    private volatile MemorySegment[] segments;
    private volatile boolean closed;
    private ConduitListener handler;
    private long epoch;

    private SmpConduit(ConduitContext context) {
        this.rank = context.rank();
        this.size = context.size();
        this.jobId = context.jobId();
        this.bootstrap = context.bootstrap();
        final int capacity = ringCapacity(context.config());
        this.window = (int) Math.min(capacity,
            context.config().getLong(RING_WINDOW, DEFAULT_RING_WINDOW, MIN_RING_WINDOW, MAX_RING_BYTES));
        this.rings = new FrameRing[size << 1];
        this.tables = new RegistrationTableFlyweight[size];
        final long ringStride = align(capacity + FrameRingDescriptor.TRAILER_LENGTH, PAGE);
        final long controlBytes = align(ControlRegionFlyweight.length(size), PAGE);
        try {
            final Path ctl = SharedFiles.path(jobId, "ctl");
            if (rank == 0) {
                own(ctl);
                control.wrap(buffer(SharedFiles.create(ctl, controlBytes, arena)), size).initialise();
            }
            final Path mine = SharedFiles.path(jobId, "am", rank);
            own(mine);
            final MemorySegment created = SharedFiles.create(mine, 2 * ringStride, arena);
            final SecureRandom random = new SecureRandom();
            for (int channel = REQUEST; channel <= REPLY; channel++) {
                FrameRing.initialise(ring(created, channel, capacity, ringStride), random.nextLong());
            }
            mapRings(rank, created, capacity, ringStride);
            final Path registrations = SharedFiles.path(jobId, "reg", rank);
            own(registrations);
            tables[rank] = new RegistrationTableFlyweight().wrap(buffer(SharedFiles.create(registrations,
                TABLE_BYTES, arena)));
            tables[rank].initialise(ProcessHandle.current().pid());
            // after the allgather every rank's files exist, rank 0's control region too
            checkSameCapacity(bootstrap.allgather(bytesOf(capacity)), capacity);
            for (int r = 0; r < size; r++) {
                if (r != rank) {
                    mapRings(r, SharedFiles.map(SharedFiles.path(jobId, "am", r), 2 * ringStride, arena), capacity,
                        ringStride);
                    tables[r] = new RegistrationTableFlyweight().wrap(buffer(SharedFiles.map(
                        SharedFiles.path(jobId, "reg", r), TABLE_BYTES, arena)));
                }
            }
            this.registered = SmpRegisteredAccess.open(context.config().get(SmpRegisteredAccess.SETTING, "auto"),
                context.config().getLong(SmpRegisteredAccess.MIN_BYTES, SmpRegisteredAccess.DEFAULT_MIN_BYTES, 0,
                    Long.MAX_VALUE), rank, tables, new UioH(arena));
            if (rank != 0) {
                control.wrap(buffer(SharedFiles.map(ctl, controlBytes, arena)), size);
                checkControlRegion(ctl);
            }
            // every rank has mapped every file: the names can go, the memory stays while a process maps it
            bootstrap.barrier();
            unlinkOwnFiles();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        this.requestRing = rings[(rank << 1) | REQUEST];
        this.replyRing = rings[(rank << 1) | REPLY];
        final int frame = requestRing.maxFrameLength();
        // Long payloads are copied into the cross-mapped segment, so their size is bounded by the segment only
        this.capabilities = Capabilities.builder("smp").maxFrameLength(frame).maxMedium(frame, frame)
            .maxLong(Long.MAX_VALUE, Long.MAX_VALUE).maxPackedLong(frame).crossMapped(true).conduitBarrier(true)
            .orderedChannels(true).build();
    }

    /** Collective over the job: creates and maps this rank's files, maps every peer's. */
    static SmpConduit open(ConduitContext context) {
        if (PRIMED.compareAndSet(false, true)) {
            FrameRing.primeWrapPaths();
        }
        return new SmpConduit(context);
    }

    private static int ringCapacity(Config config) {
        final long capacity = config.getLong(RING_BYTES, DEFAULT_RING_BYTES, MIN_RING_BYTES, MAX_RING_BYTES);
        if (Long.bitCount(capacity) != 1) {
            throw new IllegalArgumentException(RING_BYTES + "=" + capacity + " is not a power of two in ["
                + MIN_RING_BYTES + ", " + MAX_RING_BYTES + "]");
        }
        return (int) capacity;
    }

    private void checkSameCapacity(byte[][] capacities, int capacity) {
        for (int r = 0; r < size; r++) {
            final long theirs = ByteBuffer.wrap(capacities[r]).getLong();
            if (theirs != capacity) {
                throw new IllegalArgumentException(RING_BYTES + " must be the same on every rank: rank " + rank
                    + " has " + capacity + ", rank " + r + " has " + theirs);
            }
        }
    }

    private void checkControlRegion(Path ctl) {
        if (control.version() != ControlRegionFlyweight.VERSION || control.ranks() != size) {
            throw new GexException(ctl + " holds version " + control.version() + " for " + control.ranks()
                + " ranks, expected version " + ControlRegionFlyweight.VERSION + " for " + size
                + ": another job with the same id, or another GEX/J version?");
        }
    }

    private void mapRings(int owner, MemorySegment file, int capacity, long ringStride) {
        for (int channel = REQUEST; channel <= REPLY; channel++) {
            rings[(owner << 1) | channel] = new FrameRing(ring(file, channel, capacity, ringStride), window);
        }
    }

    private static AtomicBuffer ring(MemorySegment file, int channel, int capacity, long ringStride) {
        return buffer(file.asSlice(channel * ringStride, capacity + FrameRingDescriptor.TRAILER_LENGTH));
    }

    private static UnsafeBuffer buffer(MemorySegment memory) {
        return new UnsafeBuffer(memory.address(), Math.toIntExact(memory.byteSize()));
    }

    private static byte[] bytesOf(long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }

    private static long align(long value, long alignment) {
        return (value + alignment - 1) & -alignment;
    }

    private synchronized void own(Path file) {
        ownFiles.add(file);
    }

    private synchronized void unlinkOwnFiles() {
        for (Path file : ownFiles) {
            SharedFiles.unlink(file);
        }
        ownFiles.clear();
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    /** Misuse after close would touch unmapped memory through the rings' raw addresses: a crash, not an exception. */
    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("smp conduit of rank " + rank + " is closed");
        }
    }

    /** @throws IllegalArgumentException naming the value and its range, if target or channel is out of range */
    private FrameRing ring(int target, int channel) {
        ensureOpen();
        if (target < 0 || target >= size) {
            throw new IllegalArgumentException("target rank " + target + " outside [0, " + size + ")");
        }
        if (channel != REQUEST && channel != REPLY) {
            throw new IllegalArgumentException("channel " + channel + " is neither REQUEST (0) nor REPLY (1)");
        }
        return rings[(target << 1) | channel];
    }

    @Override
    public int claim(Claim claim, int target, int channel, int length) {
        final FrameRing ring = ring(target, channel);
        if (length < 0 || length > ring.maxFrameLength()) {
            throw new IllegalArgumentException("frame length " + length + " outside [0, " + ring.maxFrameLength()
                + "] (maxFrameLength)");
        }
        final long position = ring.tryClaim(length);
        if (position == FrameRing.INSUFFICIENT_CAPACITY) {
            return NO_ROOM;
        }
        claim.set(ring.buffer(), ring.frameIndex(position), length, target, channel, position);
        return OK;
    }

    @Override
    public void commit(Claim claim) {
        ring(claim.target(), claim.channel()).commit(claim.handle(), claim.length());
    }

    @Override
    public void abort(Claim claim) {
        ring(claim.target(), claim.channel()).abort(claim.handle(), claim.length());
    }

    /** Replies first: they retire requests and free the peers' credits, so they never wait behind new requests. */
    @Override
    public int poll(ConduitListener frameHandler, int channelMask, int limit) {
        ensureOpen();
        if (handler != frameHandler) { // unchanged mostly: G1 fences a reference store (DESIGN section 12)
            handler = frameHandler;
        }
        int frames = 0;
        if ((channelMask & (1 << REPLY)) != 0) {
            frames = replyRing.read(replyReader, limit);
        }
        if ((channelMask & (1 << REQUEST)) != 0 && frames < limit) {
            frames += requestRing.read(requestReader, limit - frames);
        }
        return frames;
    }

    /** Reads the word that commits the next record of each ring in the mask: no lock, no write. */
    @Override
    public boolean mayDeliver(int channelMask) {
        return closed || ((channelMask & (1 << REPLY)) != 0 && replyRing.ready())
            || ((channelMask & (1 << REQUEST)) != 0 && requestRing.ready());
    }

    private void onRequest(AtomicBuffer buffer, int index, int length) {
        handler.onFrame(REQUEST, buffer, index, length);
    }

    private void onReply(AtomicBuffer buffer, int index, int length) {
        handler.onFrame(REPLY, buffer, index, length);
    }

    /**
     * Collective: creates {@code /dev/shm/<jobId>-seg-<rank>} of {@code bytes}, maps every peer's (whose sizes may
     * differ, learnt in the same exchange as the descriptors), and unlinks this rank's file once every rank has mapped
     * it.
     */
    @Override
    public AttachedSegments attachSegment(long bytes) {
        ensureOpen();
        SegmentRules.checkAttach("smp", rank, segments == null ? null : segments[rank], bytes);
        final MemorySegment[] all = new MemorySegment[size];
        final SegmentDescriptor[] descriptors = new SegmentDescriptor[size];
        final Path mine = SharedFiles.path(jobId, "seg", rank);
        own(mine);
        try {
            all[rank] = SharedFiles.create(mine, bytes, arena);
            final byte[][] gathered = bootstrap.allgather(
                ByteBuffer.allocate(2 * Long.BYTES).putLong(all[rank].address()).putLong(bytes).array());
            for (int r = 0; r < size; r++) {
                final ByteBuffer d = ByteBuffer.wrap(gathered[r]);
                descriptors[r] = new SegmentDescriptor(d.getLong(), d.getLong(), new byte[0]);
                if (r != rank) {
                    all[r] = SharedFiles.map(SharedFiles.path(jobId, "seg", r), descriptors[r].size(), arena);
                }
            }
            bootstrap.barrier();
        } finally {
            unlinkOwnFiles();
        }
        segments = all;
        return new AttachedSegments(all[rank], descriptors);
    }

    /**
     * @return the peer's segment mapped here; for this rank the one {@link #attachSegment} returned
     * @throws IllegalStateException if no segment is attached yet
     */
    @Override
    public MemorySegment peerSegment(int peer) {
        if (peer < 0 || peer >= size) {
            throw new IllegalArgumentException("rank " + peer + " outside [0, " + size + ")");
        }
        final MemorySegment[] all = segments;
        if (all == null) {
            throw new IllegalStateException("rank " + rank + " has no segment attached: call attachSegment first");
        }
        return all[peer];
    }

    @Override
    public void barrierNotify() {
        ensureOpen();
        control.publishEpoch(rank, ++epoch);
    }

    @Override
    public boolean barrierTry() {
        ensureOpen();
        return control.allReached(epoch);
    }

    /** Cross Memory Attach to peers' registered memory, or messages where it cannot ({@link SmpRegisteredAccess}). */
    @Override
    public RegisteredAccess registeredAccess() {
        return registered;
    }

    /** {@code smp.cma.puts}, {@code smp.cma.gets}, {@code smp.cma.bytes}. */
    @Override
    public java.util.Map<String, Long> counters() {
        final java.util.Map<String, Long> m = new java.util.LinkedHashMap<>();
        if (registered != null) {
            registered.counters(m);
        }
        return m;
    }

    /** Unlinks any file of this rank still named, unmaps every file. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        unlinkOwnFiles();
        arena.close();
    }
}
