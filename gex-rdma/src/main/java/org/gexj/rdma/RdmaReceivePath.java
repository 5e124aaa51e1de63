package org.gexj.rdma;

import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.rdma.wire.RdmaHeaderFlyweight;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.JobHealth;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The AM receive path: receive buffers (each taking many messages, as libfabric's {@code FI_MULTI_RECV}, or one),
 * reposted as soon as the NIC releases them and their frames have been delivered (or deferred, see
 * {@link RdmaDeferred}); delivery of frames and remote writes to the listener,
 * deferral of those of channels not polled, and the credits their delivery owes ({@link RdmaSendPath#owe}). The
 * buffers are sized by the conduit from the credits, so that a flood never overruns them. They come in blocks: one
 * block of them all, or, where the NIC connects peers on demand ({@link RdmaNic#receivesPerConnection}), a block per
 * connected rank, allocated, registered and posted when the NIC starts connecting it, before that peer may send, so
 * that a rank pins buffers only for the peers it talks to.
 *
 * <p>Threads: called by the polling thread alone (one at a time, the core's poll lock), which alone uses the
 * delivery copies, the deferred frames and remote writes and the drop counters; it takes the {@link RdmaGuard} lock to
 * repost a buffer and to pop deferred RMA completions. {@link #post} is called under the lock (by the constructor of
 * the conduit and by the close's drain). The lock is never held while a listener runs, so handlers may send.
 */
final class RdmaReceivePath {
    private final RdmaGuard guard;
    private final RdmaNic nic;
    private final RdmaContexts contexts;
    private final RdmaSendPath send;
    private final RdmaLiveness liveness;
    private final RdmaDeferred deferred;
    private final JobHealth health;
    private final int rank;
    private final int size;
    private final long timeoutNanos;
    /** Whether a remote write's CQ data carries its source's rank in its high 32 bits. */
    private final boolean immediateInData;

    private final int buffers;
    private final long bufferBytes;
    /** Bytes of a copy a frame is delivered from: a send slot's. */
    private final int messageBytes;
    private final Arena arena;
    /** Buffers per block; block {@code k} holds buffers {@code [k * blockBuffers, (k + 1) * blockBuffers)}. */
    private final int blockBuffers;
    /** Each block's memory, its view and its registration's descriptor; written under the lock before posting. */
    private final MemorySegment[] blocks;
    private final UnsafeBuffer[] blockViews;
    private final long[] blockDescriptors;
    private int postedBlocks;
    private final RdmaHeaderFlyweight header = new RdmaHeaderFlyweight();
    /** The close's own header flyweight: a poll that began before the close may still use {@link #header}. */
    private final RdmaHeaderFlyweight closeHeader = new RdmaHeaderFlyweight();
    private UnsafeBuffer[] deliveryCopies = new UnsafeBuffer[0];
    private int deliveryDepth;
    /** Peers whose CLOSE arrived, also during ordinary polls before this rank's own close. */
    private final boolean[] closeHeard;
    /** Messages dropped: from no endpoint of the job's address vector; malformed. */
    private long droppedForeign;
    private long droppedMalformed;
    /** Messages whose header names another rank than the AV entry the provider names as their source. */
    private long sourceMismatches;

    RdmaReceivePath(RdmaGuard guard, RdmaNic nic, RdmaContexts contexts, RdmaSendPath send, RdmaLiveness liveness,
                    RdmaDeferred deferred, JobHealth health, Arena arena, int rank, int size, long timeoutNanos,
                    boolean immediateInData, int buffers, int blockBuffers, long bufferBytes, int messageBytes) {
        this.guard = guard;
        this.nic = nic;
        this.contexts = contexts;
        this.send = send;
        this.liveness = liveness;
        this.deferred = deferred;
        this.health = health;
        this.rank = rank;
        this.size = size;
        this.timeoutNanos = timeoutNanos;
        this.immediateInData = immediateInData;
        this.buffers = buffers;
        this.bufferBytes = bufferBytes;
        this.messageBytes = messageBytes;
        this.arena = arena;
        this.blockBuffers = blockBuffers;
        final int count = (buffers + blockBuffers - 1) / blockBuffers;
        this.blocks = new MemorySegment[count];
        this.blockViews = new UnsafeBuffer[count];
        this.blockDescriptors = new long[count];
        this.closeHeard = new boolean[size];
        allocate(0); // now, so that the engine's registrations keep their order (send, receive, bounce)
    }

    /** Posts the first {@code count} blocks of receive buffers (under the lock, at start-up). */
    void postBlocks(int count) {
        while (postedBlocks < count) {
            addBlock();
        }
    }

    /**
     * Allocates, registers and posts the next block of receive buffers (under the lock); nothing once every block is
     * posted. The control path: it allocates.
     */
    void addBlock() {
        if (postedBlocks == blocks.length) {
            return;
        }
        final int k = postedBlocks;
        if (blocks[k] == null) {
            allocate(k);
        }
        postedBlocks++;
        final int first = k * blockBuffers;
        for (int b = first; b < first + blockSize(k); b++) {
            post(b);
        }
    }

    /** The block of buffer {@code b}; no division where all buffers are one block (multi-receive, static). */
    private int blockOf(int b) {
        return blocks.length == 1 ? 0 : b / blockBuffers;
    }

    private int blockSize(int k) {
        return Math.min(blockBuffers, buffers - k * blockBuffers);
    }

    private void allocate(int k) {
        final MemorySegment memory = arena.allocate(bufferBytes * blockSize(k), RdmaEngine.PAGE);
        blockDescriptors[k] = nic.localRegistration() ? nic.register(memory, false, true).descriptor() : 0;
        blockViews[k] = new UnsafeBuffer(memory.address(), (int) memory.byteSize());
        blocks[k] = memory;
    }

    /** How the buffers are posted, for the start-up line: "" when all at start. */
    String describePosting() {
        return blocks.length == 1 ? "" : " (" + blockBuffers + " posted per connected rank)";
    }

    /** Receive buffers posted (all blocks added so far). */
    int postedBuffers() {
        return Math.min(buffers, postedBlocks * blockBuffers);
    }

    /** Posts receive buffer {@code b} (under the lock), driving progress while the endpoint is busy. */
    void post(int b) {
        final int k = blockOf(b);
        final long at = blocks[k].address() + (long) (b - k * blockBuffers) * bufferBytes;
        final long descriptor = blockDescriptors[k];
        long deadline = 0;
        long rc;
        while ((rc = nic.postReceive(at, bufferBytes, descriptor, contexts.receive(b))) == RdmaNic.AGAIN) {
            if (deadline == 0) {
                deadline = System.nanoTime() + timeoutNanos;
            } else if (System.nanoTime() - deadline > 0) {
                throw nic.failure("posting a receive buffer (the endpoint stayed busy for "
                    + timeoutNanos / 1_000_000_000L + " s)", rc);
            }
            nic.progress();
        }
        if (rc != 0) {
            throw nic.failure("posting a receive buffer", rc);
        }
    }

    /** Reposts a released buffer (takes the lock, unclosed: the close's drain needs the buffers too). */
    private void repost(int b) {
        guard.lockUnclosed();
        try {
            post(b);
        } finally {
            guard.unlock();
        }
    }

    /**
     * A remote write: entry {@code entry} carries remote completion data. The conduit never sends messages with CQ
     * data, so this is a remote write whatever other flags a provider sets (one that lands it through a posted
     * receive may add {@code FI_RECV}, and release that buffer with it).
     *
     * @return 1 if delivered, 0 if deferred
     */
    int remoteWrite(RdmaCompletions entries, int entry, ConduitListener listener, int mask) {
        final long data = entries.data(entry);
        final int source = immediateInData ? (int) (data >>> 32) : ConduitListener.SOURCE_UNKNOWN;
        if (source >= 0 && source < size) {
            liveness.heard(source);
        }
        final long immediate = data & 0xFFFF_FFFFL;
        if (entries.releases(entry)) {
            final int index = contexts.decode(entries.context(entry));
            if (contexts.isReceive(index)) {
                repost(contexts.receiveBufferOf(index));
            }
        }
        if ((mask & (1 << Conduit.REQUEST)) == 0) {
            deferred.deferWrite(source, immediate);
            return 0;
        }
        listener.onRemoteWrite(source, immediate);
        return 1;
    }

    /**
     * A message in receive buffer {@code b}, and/or its release (shm reports the release alone, without
     * {@code FI_RECV}), named by entry {@code entry}, whose source is {@code entrySource} ({@link RdmaNic#address}, or
     * {@link RdmaNic#UNKNOWN_SOURCE}).
     *
     * @return 1 if a frame was delivered, else 0
     */
    int message(int b, RdmaCompletions entries, int entry, long entrySource, ConduitListener listener, int mask) {
        final int length = (int) Math.min(entries.length(entry), messageBytes);
        final int k = blockOf(b);
        final UnsafeBuffer buffer = blockViews[k];
        final int offset = (int) (entries.buffer(entry) - blocks[k].address());
        if (!entries.releases(entry)) {
            return length > 0 ? received(buffer, offset, length, entrySource, listener, mask) : 0;
        }
        // the last message of a released buffer is delivered from a copy, so that the buffer is posted again
        // before its handler runs: a handler that waits for room polls on, and needs both buffers posted
        UnsafeBuffer copy = null;
        if (length > 0) {
            copy = deliveryCopy(deliveryDepth);
            copy.putBytes(0, buffer, offset, length);
        }
        repost(b);
        if (copy == null) {
            return 0;
        }
        deliveryDepth++;
        try {
            return received(copy, 0, length, entrySource, listener, mask);
        } finally {
            deliveryDepth--;
        }
    }

    /** A message landed at {@code offset} of {@code from}. */
    private int received(UnsafeBuffer from, int offset, int length, long entrySource, ConduitListener listener,
                         int mask) {
        if (entrySource == RdmaNic.FOREIGN_SOURCE) {
            // an endpoint outside the job's address vector: whatever it says, nothing of it is used
            if (droppedForeign++ == 0) {
                System.err.println("gex: " + nic.conduit() + " rank " + rank + " dropped a message from an endpoint"
                    + " outside the job (counted as " + nic.conduit() + ".dropped.foreign; only the first is"
                    + " reported)");
            }
            return 0;
        }
        final RdmaHeaderFlyweight h = header.wrap(from, offset);
        final String malformed = h.validate(length, size);
        if (malformed != null) {
            droppedMalformed++;
            System.err.println("gex: " + nic.conduit() + " rank " + rank + " dropped a message: " + malformed);
            return 0;
        }
        final int source = h.source();
        if (entrySource != RdmaNic.UNKNOWN_SOURCE && entrySource != nic.address(source)) {
            // counted, not dropped: udp;ofi_rxd names another entry of the AV than the sender's for every message
            sourceMismatches++;
        }
        liveness.heard(source);
        send.returned(source, h.requestCredits(), h.replyCredits());
        if (h.kind() != RdmaHeaderFlyweight.KIND_FRAME) {
            if (h.kind() == RdmaHeaderFlyweight.KIND_CLOSE) {
                closeHeard[source] = true; // a peer closing before this rank started to: counted by its close
                // its final barrier is behind it: a wait of this rank's that needs it ends after the core's grace,
                // now and not when the launcher hears of it, which is only after that peer's close has ended
                health.peerClosed(source);
            }
            return 0;
        }
        final int channel = h.channel();
        final int frameLength = length - RdmaHeaderFlyweight.LENGTH;
        if ((mask & (1 << channel)) == 0) {
            deferred.deferFrame(channel, source, from, offset + RdmaHeaderFlyweight.LENGTH, frameLength);
            return 0;
        }
        send.owe(source, channel, length);
        listener.onFrame(channel, from, offset + RdmaHeaderFlyweight.LENGTH, frameLength);
        return 1;
    }

    /**
     * Delivers what earlier polls deferred and {@code mask} now allows, up to {@code limit}: frames, then remote
     * writes, then RMA completions (those pushed by any thread, popped under the lock).
     */
    int deliverDeferred(ConduitListener listener, int mask, int limit) {
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
            send.owe(source, channel, length + RdmaHeaderFlyweight.LENGTH);
            deliveryDepth++;
            try {
                listener.onFrame(channel, copy, 0, length);
            } finally {
                deliveryDepth--;
            }
            delivered++;
        }
        while (delivered < limit && (mask & (1 << Conduit.REQUEST)) != 0 && deferred.hasWrite()) {
            final int source = deferred.writeSource();
            final long immediate = deferred.writeImmediate();
            deferred.popWrite();
            listener.onRemoteWrite(source, immediate);
            delivered++;
        }
        while (delivered < limit && (mask & (1 << Conduit.REPLY)) != 0 && deferred.mayHaveCompletion()) {
            final long operation;
            final int status;
            guard.lock(); // pushed by any thread that starts an operation with nothing to move
            try {
                if (!deferred.hasCompletion()) {
                    break;
                }
                operation = deferred.completionOperation();
                status = deferred.completionStatus();
                deferred.popCompletion();
            } finally {
                guard.unlock();
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
            deliveryCopies[depth] = new UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(messageBytes));
        }
        return deliveryCopies[depth];
    }

    // ------------------------------------------------------------------------------------------------- close

    /** Peers whose CLOSE arrived (the close's drain marks them too, and itself). */
    boolean[] closeHeard() {
        return closeHeard;
    }

    /**
     * The close's drain (under the lock): the rank whose valid CLOSE message of {@code length} bytes landed at
     * address {@code at} of receive buffer {@code b}, or -1 if it is no CLOSE.
     */
    int closeSource(int b, long at, long length) {
        if (length < RdmaHeaderFlyweight.LENGTH) {
            return -1;
        }
        final int k = blockOf(b);
        final RdmaHeaderFlyweight h = closeHeader.wrap(blockViews[k], (int) (at - blocks[k].address()));
        return h.validate((int) length, size) == null && h.kind() == RdmaHeaderFlyweight.KIND_CLOSE ? h.source() : -1;
    }

    long droppedForeign() {
        return droppedForeign;
    }

    long droppedMalformed() {
        return droppedMalformed;
    }

    long sourceMismatches() {
        return sourceMismatches;
    }
}
