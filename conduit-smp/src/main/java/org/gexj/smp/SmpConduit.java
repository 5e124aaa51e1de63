package org.gexj.smp;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.gexj.spi.Bootstrap;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.FrameHandler;
import org.gexj.smp.wire.BarrierFlyweight;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Ranks of one host over shared memory. Each rank owns one file in /dev/shm holding two many-to-one ring buffers
 * (Agrona), one per channel; every rank maps every file, so sending is a claim in the target's ring and receiving
 * is reading one's own. Segments are files too, mapped by every rank, so RMA and AM Long payloads are memory
 * copies. Rank 0 also creates the barrier region. Every file is unlinked as soon as all ranks have mapped it, so
 * nothing is left in /dev/shm after an exit or a crash.
 */
public final class SmpConduit implements Conduit {
    private static final long PAGE = 4096;

    private final int rank;
    private final int size;
    private final String jobId;
    private final Bootstrap bootstrap;
    private final Arena arena = Arena.ofShared();
    private final List<Path> ownFiles = new ArrayList<>();
    private final RingBuffer[][] rings;
    private final BarrierFlyweight barrier = new BarrierFlyweight();
    private final Capabilities capabilities;
    private final MessageHandler requestReader = this::onRequest;
    private final MessageHandler replyReader = this::onReply;
    private MemorySegment[] segments;
    private FrameHandler handler;
    private long epoch;
    private boolean closed;

    private SmpConduit(ConduitContext context) {
        this.rank = context.rank();
        this.size = context.size();
        this.jobId = context.jobId();
        this.bootstrap = context.bootstrap();
        final long capacity = context.config().getLong("GEX_SMP_RING_BYTES", 1 << 20, 64 << 10, 256L << 20);
        if (Long.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("GEX_SMP_RING_BYTES=" + capacity + " must be a power of two in [65536, 268435456]");
        }
        this.rings = new RingBuffer[size][2];
        final long ringBytes = align(capacity + RingBufferDescriptor.TRAILER_LENGTH, PAGE);
        final long fileBytes = 2 * ringBytes;
        try {
            final Path ctl = Smp.SHM.resolve(jobId + "-ctl");
            if (rank == 0) {
                ownFiles.add(ctl);
                final MemorySegment c = SharedFiles.create(ctl, align(BarrierFlyweight.length(size), PAGE), arena);
                barrier.wrap(new UnsafeBuffer(c.address(), (int) c.byteSize()), size).initialise();
            }
            final Path mine = SharedFiles.path(jobId, "am", rank);
            ownFiles.add(mine);
            mapRings(rank, SharedFiles.create(mine, fileBytes, arena), capacity, ringBytes);
            bootstrap.barrier();
            for (int r = 0; r < size; r++) {
                if (r != rank) {
                    mapRings(r, SharedFiles.map(SharedFiles.path(jobId, "am", r), fileBytes, arena), capacity, ringBytes);
                }
            }
            if (rank != 0) {
                final MemorySegment c = SharedFiles.map(ctl, align(BarrierFlyweight.length(size), PAGE), arena);
                barrier.wrap(new UnsafeBuffer(c.address(), (int) c.byteSize()), size);
            }
            bootstrap.barrier();
            unlinkOwnFiles();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        this.capabilities = new Capabilities("smp", rings[rank][REQUEST].maxMsgLength(), true, false, true);
    }

    static SmpConduit open(ConduitContext context) {
        return new SmpConduit(context);
    }

    private void mapRings(int owner, MemorySegment file, long capacity, long ringBytes) {
        for (int channel = 0; channel < 2; channel++) {
            final UnsafeBuffer b = new UnsafeBuffer(file.address() + channel * ringBytes,
                (int) (capacity + RingBufferDescriptor.TRAILER_LENGTH));
            rings[owner][channel] = new ManyToOneRingBuffer(b);
        }
    }

    private static long align(long value, long alignment) {
        return (value + alignment - 1) & -alignment;
    }

    private void unlinkOwnFiles() {
        for (Path p : ownFiles) {
            SharedFiles.unlink(p);
        }
        ownFiles.clear();
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    private RingBuffer ring(int target, int channel) {
        if (target < 0 || target >= size) {
            throw new IllegalArgumentException("rank " + target + " outside [0, " + size + ")");
        }
        if (channel != REQUEST && channel != REPLY) {
            throw new IllegalArgumentException("channel " + channel + " is neither REQUEST (0) nor REPLY (1)");
        }
        return rings[target][channel];
    }

    @Override
    public int claim(int target, int channel, int length) {
        final RingBuffer ring = ring(target, channel);
        if (length < 0 || length > ring.maxMsgLength()) {
            throw new IllegalArgumentException("frame length " + length + " outside [0, " + ring.maxMsgLength()
                + "] (maxFrameLength)");
        }
        final int index = ring.tryClaim(1, length);
        return index >= 0 ? index : BACK_PRESSURED;
    }

    @Override
    public AtomicBuffer claimBuffer(int target, int channel) {
        return ring(target, channel).buffer();
    }

    @Override
    public void commit(int target, int channel, int offset) {
        ring(target, channel).commit(offset);
    }

    @Override
    public void abort(int target, int channel, int offset) {
        ring(target, channel).abort(offset);
    }

    @Override
    public int poll(FrameHandler frameHandler, int channelMask, int limit) {
        handler = frameHandler;
        int frames = 0;
        if ((channelMask & (1 << REPLY)) != 0) {
            frames += rings[rank][REPLY].read(replyReader, limit);
        }
        if ((channelMask & (1 << REQUEST)) != 0 && frames < limit) {
            frames += rings[rank][REQUEST].read(requestReader, limit - frames);
        }
        return frames;
    }

    private void onRequest(int msgTypeId, org.agrona.MutableDirectBuffer buffer, int index, int length) {
        handler.onFrame(REQUEST, buffer, index, length);
    }

    private void onReply(int msgTypeId, org.agrona.MutableDirectBuffer buffer, int index, int length) {
        handler.onFrame(REPLY, buffer, index, length);
    }

    @Override
    public MemorySegment attachSegment(long bytes) {
        if (segments != null) {
            throw new IllegalStateException("segment already attached");
        }
        final MemorySegment[] all = new MemorySegment[size];
        final Path mine = SharedFiles.path(jobId, "seg", rank);
        ownFiles.add(mine);
        try {
            all[rank] = SharedFiles.create(mine, bytes, arena);
            final byte[][] sizes = bootstrap.allgather(java.nio.ByteBuffer.allocate(8).putLong(bytes).array());
            for (int r = 0; r < size; r++) {
                if (r != rank) {
                    all[r] = SharedFiles.map(SharedFiles.path(jobId, "seg", r), java.nio.ByteBuffer.wrap(sizes[r]).getLong(), arena);
                }
            }
            bootstrap.barrier();
        } finally {
            unlinkOwnFiles();
        }
        segments = all;
        return all[rank];
    }

    @Override
    public MemorySegment peerSegment(int peer) {
        if (peer < 0 || peer >= size) {
            throw new IllegalArgumentException("rank " + peer + " outside [0, " + size + ")");
        }
        return segments == null ? null : segments[peer];
    }

    @Override
    public void barrierNotify() {
        barrier.publishEpoch(rank, ++epoch);
    }

    @Override
    public boolean barrierTry() {
        return barrier.allReached(epoch);
    }

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
