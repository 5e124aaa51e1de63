package org.gexj.rdma;

import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.RmaTransport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * RMA: {@code fi_write}, {@code fi_read} and {@code fi_writedata} on the registered segments, in chunks of the
 * provider's largest message, tracked in {@link RdmaOperations}. A chunk the endpoint refuses for now is submitted
 * again by the next poll ({@link #resume}). The remote CQ data of a put-with-immediate carries the initiator's rank
 * in its high 32 bits and the AM layer's 32-bit tag in its low ones, or the tag alone where the provider's CQ data
 * has only 32 bits.
 *
 * <p>Heap memory ({@code MemorySegment.ofArray}) cannot be registered or handed to the NIC (the garbage collector
 * moves it): an operation on it is staged through one of {@link #BOUNCE_BUFFERS} registered bounce buffers of
 * {@link #BOUNCE_BYTES}, one chunk at a time (a put copies each chunk in before its write, a get copies each out after
 * its read, before the next chunk or the completion), and counted.
 *
 * <p>A put whose caller wants its source back at once ({@link RmaTransport#putCopying}) is staged the same way when it
 * fits a bounce buffer, native memory up to {@link #COPY_MAX}: its source is copied at the call, so the caller's
 * local completion is immediate instead of the write's completion, a network round trip on tcp;ofi_rxm (GASNet's ofi
 * conduit copies such puts likewise). These are not counted as staged. Those of up to {@link #COPY_MAX} bytes go to
 * one of {@link #COPY_BUFFERS} smaller copy buffers instead: each is held until its write is delivered, so a flood of
 * small puts has as many in flight as there are copy buffers.
 *
 * <p>The endpoint is reached only through {@link #post}, local memory's descriptors only through
 * {@link #localDescriptor} and {@link #closeOwnRegistration}. Memory outside the segment keeps its registration in a
 * {@link RdmaRegistrationCache} after the operation ({@code GEX_REG_CACHE_BYTES}), so a buffer used again is not
 * registered again.
 *
 * <p>Threads: any thread may {@link #start} an operation; the polling thread reports completions
 * ({@link #completed}) and resumes ({@link #resume}); the close abandons them. Every field is guarded by the
 * {@link RdmaGuard} lock: methods documented "under the lock" expect the caller to hold it, the others take it. The
 * lock is never held while a listener runs.
 */
final class RdmaRmaEngine {
    /** Bytes of one bounce buffer: the chunk in which an operation on heap memory moves. */
    static final int BOUNCE_BYTES = 64 * 1024;
    /** Bounce buffers of a rank: operations on heap memory beyond these are back-pressured until one completes. */
    static final int BOUNCE_BUFFERS = 8;
    /** Largest put from native memory that {@link RmaTransport#putCopying} copies into a bounce buffer. */
    static final int COPY_MAX = 8192;
    /**
     * Copy buffers of {@link #COPY_MAX} bytes, after the bounce buffers in the same registered memory. A copied put
     * holds its buffer until its write is delivered, a round trip: with the 8 bounce buffers alone, at most 8 were in
     * flight (GASNet's ofi-conduit keeps up to 32 bounce buffers).
     */
    static final int COPY_BUFFERS = 64;

    private final RdmaGuard guard;
    private final RdmaNic nic;
    private final RdmaContexts contexts;
    private final RdmaRegistrations registrations;
    private final RdmaRegistrationCache cache;
    private final RdmaDeferred deferred;
    private final RdmaLiveness liveness;
    private final int rank;
    private final int size;
    private final long maxMessageSize;
    /** The provider addresses remote memory by virtual address ({@link RdmaNic#virtualAddresses}), not offset. */
    private final boolean virtualAddresses;
    /** Whether the CQ data of a put-with-immediate carries this rank in its high 32 bits. */
    private final boolean immediateInData;
    private final RdmaOperations operations;
    private final RdmaAtomics atomics;
    // bounce buffers for operations on heap memory, registered once
    private final MemorySegment bounceMemory;
    private final long bounceDescriptor;
    /** Bytes an operation on heap memory moves per chunk: a bounce buffer, or less if the provider's messages are. */
    private final int bounceChunk;
    private final int[] freeBounce;
    private int freeBounceCount;
    private final int[] freeCopy;
    private int freeCopyCount;
    private long stagedOperations;
    private long stagedBytes;
    /** Operations started on peers' registered memory by key (counted outside the lock). */
    private final AtomicLong registeredOperations = new AtomicLong();
    // every rank's segment, from the attach
    private long[] segmentBase;
    private long[] segmentSize;
    private long[] segmentKey;

    RdmaRmaEngine(RdmaGuard guard, RdmaNic nic, RdmaContexts contexts, RdmaRegistrations registrations,
                  RdmaDeferred deferred, RdmaLiveness liveness, Arena arena, int rank, int size,
                 int capacity, boolean immediateInData, long registrationCacheBytes) {
        this.guard = guard;
        this.nic = nic;
        this.contexts = contexts;
        this.registrations = registrations;
        this.cache = new RdmaRegistrationCache(m -> nic.register(m, false, false), registrationCacheBytes,
            RdmaRegistrationCache.MAX_ENTRIES);
        this.deferred = deferred;
        this.liveness = liveness;
        this.rank = rank;
        this.size = size;
        this.maxMessageSize = nic.maxMessageSize();
        this.virtualAddresses = nic.virtualAddresses();
        this.immediateInData = immediateInData;
        this.operations = new RdmaOperations(capacity);
        this.atomics = new RdmaAtomics(guard, nic, contexts, operations, arena);
        this.bounceMemory = arena.allocate((long) BOUNCE_BYTES * BOUNCE_BUFFERS + (long) COPY_MAX * COPY_BUFFERS,
            RdmaEngine.PAGE);
        this.bounceDescriptor = nic.localRegistration() ? nic.register(bounceMemory, false, true).descriptor() : 0;
        this.bounceChunk = (int) Math.min(BOUNCE_BYTES, maxMessageSize);
        this.freeBounce = new int[BOUNCE_BUFFERS];
        for (int i = 0; i < BOUNCE_BUFFERS; i++) {
            freeBounce[i] = BOUNCE_BUFFERS - 1 - i;
        }
        this.freeBounceCount = BOUNCE_BUFFERS;
        this.freeCopy = new int[COPY_BUFFERS];
        for (int i = 0; i < COPY_BUFFERS; i++) {
            freeCopy[i] = BOUNCE_BUFFERS + COPY_BUFFERS - 1 - i;
        }
        this.freeCopyCount = COPY_BUFFERS;
    }

    /** Offset in the registered memory of staging buffer {@code b}: a bounce buffer, or a copy buffer after them. */
    private static long bufferOffset(int b) {
        return b < BOUNCE_BUFFERS ? (long) b * BOUNCE_BYTES
            : (long) BOUNCE_BUFFERS * BOUNCE_BYTES + (long) (b - BOUNCE_BUFFERS) * COPY_MAX;
    }

    /** Every rank's segment (base address, size, key), from the attach. */
    void segments(long[] base, long[] sizes, long[] keys) {
        segmentBase = base;
        segmentKey = keys;
        segmentSize = sizes;
    }

    /**
     * Starts an RMA operation: checks it, takes a slot (and a bounce buffer for heap memory) and submits as many
     * chunks as the endpoint takes now. A call that throws has started nothing and holds nothing. Takes the lock.
     *
     * @return {@link Conduit#OK}, or {@link Conduit#NO_ROOM} with nothing started
     */
    int start(int kind, int peer, long remoteOffset, MemorySegment local, long localOffset, long nbytes,
              long immediate, long operation, boolean copySource) {
        guard.ensureOpen();
        checkPeer(peer);
        RmaTransport.checkRanges(nic.conduit(), rank, segmentSize, peer, remoteOffset, local, localOffset, nbytes);
        checkImmediateLength(kind, nbytes);
        return begin(kind, peer, (virtualAddresses ? segmentBase[peer] : 0) + remoteOffset, segmentKey[peer], local,
            localOffset, nbytes, immediate, operation, copySource);
    }

    /**
     * Starts a put or get on {@code peer}'s memory registered for peers ({@link RdmaPeerRegistrations}): at
     * {@code offset} into the registration whose descriptor gave {@code address} and {@code key}, a range the caller
     * checked against the descriptor. Otherwise as {@link #start}.
     */
    int startRegistered(int kind, int peer, long address, long key, long offset, MemorySegment local,
                        long localOffset, long nbytes, long immediate, long operation) {
        guard.ensureOpen();
        checkPeer(peer);
        if (nbytes < 0 || offset < 0 || local == null || localOffset < 0 || localOffset > local.byteSize() - nbytes) {
            throw new IllegalArgumentException("local range [" + localOffset + ", " + (localOffset + nbytes)
                + ") outside the local buffer of " + (local == null ? "null" : local.byteSize() + " bytes")
                + ", or remote offset " + offset + " negative");
        }
        checkImmediateLength(kind, nbytes);
        final int code = begin(kind, peer, (virtualAddresses ? address : 0) + offset, key, local, localOffset, nbytes,
            immediate, operation, false);
        if (code == Conduit.OK) {
            registeredOperations.incrementAndGet();
        }
        return code;
    }

    /** {@link org.gexj.spi.RmaTransport#atomic} on {@code peer}'s segment: checked, then {@link RdmaAtomics}. */
    int startAtomic(int peer, long remoteOffset, int datatype, int op, long operand, long compare,
                    MemorySegment result, long resultOffset, long operation) {
        guard.ensureOpen();
        checkPeer(peer);
        RmaTransport.checkRanges(nic.conduit(), rank, segmentSize, peer, remoteOffset, null, 0, 0);
        final int bytes = org.gexj.spi.AtomicCodes.bytes(datatype);
        if (remoteOffset > segmentSize[peer] - bytes || (remoteOffset & (bytes - 1)) != 0) {
            throw new IllegalArgumentException("atomic at offset " + remoteOffset + " of rank " + peer + "'s segment"
                + " of " + segmentSize[peer] + " bytes: it needs " + bytes + " bytes there, aligned to " + bytes);
        }
        return atomics.start(peer, (virtualAddresses ? segmentBase[peer] : 0) + remoteOffset, segmentKey[peer],
            datatype, op, operand, compare, result, resultOffset, operation);
    }

    RdmaAtomics atomics() {
        return atomics;
    }

    /** A put with an immediate is one message: it must fit the provider's largest. */
    private void checkImmediateLength(int kind, long nbytes) {
        if (kind == RdmaOperations.PUT_IMMEDIATE && nbytes > maxMessageSize) {
            throw new IllegalArgumentException("put with immediate of " + nbytes + " bytes: the provider's largest"
                + " message is " + maxMessageSize);
        }
    }

    private void checkPeer(int peer) {
        if (peer < 0 || peer >= size) {
            throw new IllegalArgumentException("target rank " + peer + " outside [0, " + size + ")");
        }
    }

    /** {@link #start} once the remote memory is known: its address (or offset) for the NIC, and its key. */
    private int begin(int kind, int peer, long remoteAddress, long key, MemorySegment local, long localOffset,
                      long nbytes, long immediate, long operation, boolean copySource) {
        // heap memory moves and cannot be registered: it is staged through a bounce buffer
        final boolean heap = nbytes > 0 && !local.isNative();
        final boolean staged = heap || copySource;
        final boolean small = copySource && nbytes <= COPY_MAX;
        guard.lockOpen();
        try {
            if (small ? freeCopyCount == 0 : staged && freeBounceCount == 0) {
                return Conduit.NO_ROOM;
            }
            final int slot = operations.take();
            if (slot < 0) {
                return Conduit.NO_ROOM;
            }
            operations.kind[slot] = kind;
            operations.peer[slot] = peer;
            operations.operation[slot] = operation;
            operations.remoteAddress[slot] = remoteAddress;
            operations.key[slot] = key;
            operations.immediate[slot] = (immediateInData ? (long) rank << 32 : 0) | (immediate & 0xFFFF_FFFFL);
            operations.total[slot] = nbytes;
            operations.submitted[slot] = 0;
            operations.outstanding[slot] = 0;
            operations.status[slot] = Conduit.OK;
            if (nbytes == 0 && kind != RdmaOperations.PUT_IMMEDIATE) {
                // nothing to move: reported by the next poll (under the lock: any thread may get here)
                deferred.deferCompletion(operation, Conduit.OK);
                operations.release(slot);
                return Conduit.OK;
            }
            try {
                if (staged) {
                    final int b = small ? freeCopy[--freeCopyCount] : freeBounce[--freeBounceCount];
                    operations.bounce[slot] = b;
                    operations.heap[slot] = local;
                    operations.heapOffset[slot] = localOffset;
                    operations.localAddress[slot] = bounceMemory.address() + bufferOffset(b);
                    operations.descriptor[slot] = bounceDescriptor;
                    if (copySource) {
                        // the whole source now, before the call returns; submit copies nothing more
                        MemorySegment.copy(local, localOffset, bounceMemory, bufferOffset(b), nbytes);
                        operations.heap[slot] = null;
                    }
                    if (heap) {
                        stagedOperations++;
                    }
                } else {
                    final long address = nbytes == 0 ? (local == null ? 0 : local.address())
                        : local.address() + localOffset;
                    operations.localAddress[slot] = address;
                    operations.descriptor[slot] = localDescriptor(slot, local, address, nbytes);
                }
                if (!submit(slot) && operations.outstanding[slot] == 0) {
                    release(slot);
                    return Conduit.NO_ROOM;
                }
            } catch (RuntimeException | Error e) {
                if (operations.outstanding[slot] == 0) {
                    release(slot); // nothing reached the provider: the caller's exception is all there is
                    throw e;
                }
                // chunks are in flight: the operation completes with them, failed, and submits nothing more
                operations.status[slot] = RmaTransport.FAILED;
                operations.total[slot] = operations.submitted[slot];
                if (e instanceof Error error) {
                    throw error;
                }
                System.err.println("gex: " + nic.conduit() + " rank " + rank + " failed an RMA operation to rank "
                    + peer + " part way: "
                    + e);
                return Conduit.OK;
            }
            if (needsResume(slot)) {
                operations.queueResume(slot);
            }
            return Conduit.OK;
        } finally {
            guard.unlock();
        }
    }

    /** {@link RmaTransport#copiesSource}: a put that one bounce buffer holds, native memory up to {@link #COPY_MAX}. */
    boolean copiesSource(MemorySegment src, long nbytes) {
        return nbytes > 0 && src != null && nbytes <= (src.isNative() ? Math.min(COPY_MAX, bounceChunk) : bounceChunk);
    }

    /** Whether an operation has chunks to submit that only {@link #resume} will (under the lock). */
    private boolean needsResume(int slot) {
        // a staged operation has one chunk in flight at most: its completion submits the next one
        return operations.waiting(slot) && (!operations.staged(slot) || operations.outstanding[slot] == 0);
    }

    /** Frees an operation's slot, its own registration and its bounce buffer (under the lock). */
    private void release(int slot) {
        closeOwnRegistration(slot);
        if (operations.staged(slot)) {
            final int b = operations.bounce[slot];
            if (b < BOUNCE_BUFFERS) {
                freeBounce[freeBounceCount++] = b;
            } else {
                freeCopy[freeCopyCount++] = b;
            }
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
        final long max = staged ? bounceChunk : maxMessageSize;
        final int kind = operations.kind[slot];
        do {
            final long offset = operations.submitted[slot];
            final long chunk = Math.min(max, operations.total[slot] - offset);
            final long local = operations.localAddress[slot] + (staged ? 0 : offset);
            if (staged && kind != RdmaOperations.GET && operations.heap[slot] != null) {
                MemorySegment.copy(operations.heap[slot], operations.heapOffset[slot] + offset, bounceMemory,
                    local - bounceMemory.address(), chunk);
            }
            // a put with immediate carries it on its last chunk (staged, the chunks before it are plain writes, all
            // complete before the last is submitted, so the target sees the immediate after every byte)
            final boolean data = kind == RdmaOperations.PUT_IMMEDIATE && offset + chunk == operations.total[slot];
            if (!post(slot, data, local, offset, chunk)) {
                return false;
            }
            operations.submitted[slot] = offset + chunk;
            operations.outstanding[slot]++;
            if (staged && operations.heap[slot] != null) {
                stagedBytes += chunk;
            }
        } while (operations.waiting(slot) && !staged);
        return true;
    }

    /**
     * Hands one chunk of {@code slot} at {@code offset} to the endpoint (under the lock): a read, a write, or with
     * {@code data} a write carrying the operation's immediate.
     *
     * @return false if the endpoint was busy
     * @throws RuntimeException the NIC's failure, if the endpoint refused it for good
     */
    private boolean post(int slot, boolean data, long local, long offset, long chunk) {
        final int kind = operations.kind[slot];
        final int peer = operations.peer[slot];
        final long remote = operations.remoteAddress[slot] + offset;
        final long context = contexts.operation(slot);
        final long rc = data
            ? nic.writeData(local, chunk, operations.descriptor[slot], operations.immediate[slot], peer, remote,
                operations.key[slot], context)
            : nic.transfer(kind == RdmaOperations.GET, local, chunk, operations.descriptor[slot], peer, remote,
                operations.key[slot], context);
        if (rc == RdmaNic.AGAIN) {
            return false;
        }
        if (rc != 0) {
            throw nic.failure((data ? "write with data" : kind == RdmaOperations.GET ? "read" : "write")
                + " to rank " + peer, rc);
        }
        return true;
    }

    /** Without the lock: whether an operation may wait to submit chunks. */
    boolean mayResume() {
        return operations.mayResume();
    }

    /** Submits the chunks that found the endpoint busy, oldest operation first (takes the lock, open). */
    void resume() {
        if (!operations.mayResume()) {
            return;
        }
        guard.lockOpen();
        try {
            int slot;
            while ((slot = operations.peekResume()) >= 0) {
                try {
                    if (!submit(slot)) {
                        return;
                    }
                } catch (RuntimeException e) {
                    failUnsubmitted(slot, e);
                }
                operations.popResume();
            }
        } finally {
            guard.unlock();
        }
    }

    /**
     * The provider refused a chunk of an operation for good: it submits nothing more and completes failed, now if no
     * chunk of it is in flight (through the deferred completions), else with its last one (under the lock).
     */
    private void failUnsubmitted(int slot, RuntimeException e) {
        System.err.println("gex: " + nic.conduit() + " rank " + rank + " failed an RMA operation to rank "
            + operations.peer[slot] + ": "
            + e.getMessage());
        operations.status[slot] = RmaTransport.FAILED;
        operations.total[slot] = operations.submitted[slot];
        if (operations.outstanding[slot] == 0) {
            deferred.deferCompletion(operations.operation[slot], RmaTransport.FAILED);
            release(slot);
        }
    }

    /**
     * One chunk of {@code op} completed (the polling thread; takes the lock, unclosed): a staged get copies it out of
     * the bounce buffer, a staged operation submits its next chunk; at the last, the operation completes (now, or
     * deferred when {@code mask} excludes the reply channel).
     *
     * @return 1 if the listener was told, else 0
     */
    int completed(int op, ConduitListener listener, int mask) {
        guard.lockUnclosed(); // a staged operation copies from its bounce buffer and submits its next chunk
        final long operation;
        final int finalStatus;
        try {
            if (guard.closing()) {
                closeChunk(op); // read before the close began: the drain waits for it, and it submits nothing more
                return 0;
            }
            liveness.heard(operations.peer[op]);
            if (--operations.outstanding[op] > 0) {
                return 0;
            }
            if (operations.staged(op) ? stageNext(op) : operations.waiting(op)) {
                return 0;
            }
            operation = operations.operation[op];
            finalStatus = operations.status[op];
            if (operations.kind[op] == RdmaOperations.ATOMIC) {
                atomics.finish(op, finalStatus == Conduit.OK);
            }
            release(op); // before the listener, which may start the next operation in this slot
            if ((mask & (1 << Conduit.REPLY)) == 0) {
                deferred.deferCompletion(operation, finalStatus);
                return 0;
            }
        } finally {
            guard.unlock();
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
        if (operations.status[op] != Conduit.OK) {
            return false;
        }
        if (operations.kind[op] == RdmaOperations.GET) {
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
        } catch (RuntimeException e) {
            System.err.println("gex: " + nic.conduit() + " rank " + rank + " failed an RMA operation to rank "
                + operations.peer[op]
                + ": " + e.getMessage());
            operations.status[op] = RmaTransport.FAILED;
            return false;
        }
        return true;
    }

    /**
     * A chunk completed in error (under the lock, in the poller's read of the completion queue): the operation fails,
     * and at its last chunk completes through the deferred completions, so that the listener runs at the next poll,
     * outside the lock. A staged operation submits nothing more.
     */
    void chunkFailed(int op) {
        operations.status[op] = RmaTransport.FAILED;
        if (operations.staged(op)) {
            operations.total[op] = operations.submitted[op];
        }
        if (--operations.outstanding[op] > 0 || operations.waiting(op)) {
            return;
        }
        deferred.deferCompletion(operations.operation[op], operations.status[op]);
        release(op);
    }

    /**
     * The descriptor of local memory for an operation: none where the provider needs no local registration, else
     * that of the segment if it contains the memory, else a cached registration ({@link RdmaRegistrationCache}), else
     * one made for this operation alone.
     */
    private long localDescriptor(int slot, MemorySegment local, long address, long nbytes) {
        final long known = registrations.descriptor(address, nbytes);
        if (known != -1) {
            return known;
        }
        final int entry = cache.acquire(local, address, nbytes);
        if (entry >= 0) {
            operations.cacheEntry[slot] = entry;
            return cache.descriptor(entry);
        }
        final RdmaRegion region = registrations.registerOwn(address, nbytes);
        operations.ownRegistration[slot] = region;
        return region.descriptor();
    }

    private void closeOwnRegistration(int slot) {
        final int entry = operations.cacheEntry[slot];
        if (entry >= 0) {
            cache.release(entry);
        }
        final RdmaRegion region = operations.ownRegistration[slot];
        if (region != null) {
            region.release().run();
        }
    }

    /** Releases the cached registrations (under the lock, no operation in flight: the NIC closes next). */
    void closeRegistrations() {
        cache.close();
    }

    /** The registration cache (under the lock), for the conduit's counters. */
    RdmaRegistrationCache cache() {
        return cache;
    }

    // ------------------------------------------------------------------------------------------------- close

    /** Operations started and not yet completed (under the lock). */
    int inUse() {
        return operations.inUse();
    }

    /** The liveness watch (under the lock): counts the operations with chunks in flight to each peer. */
    void countInFlight(int[] perPeer) {
        java.util.Arrays.fill(perPeer, 0);
        for (int op = 0; op < operations.capacity; op++) {
            if (operations.outstanding[op] > 0) {
                perPeer[operations.peer[op]]++;
            }
        }
    }

    /** At the close a chunk of an RMA operation completed: the operation ends, unreported, at its last (under lock). */
    void closeChunk(int op) {
        if (operations.outstanding[op] > 0 && --operations.outstanding[op] == 0) {
            release(op);
        }
    }

    /**
     * At the start of the close: operations that wait to submit chunks never will, and those with none in flight end
     * now, unreported (under the lock).
     */
    void abandonUnsubmitted() {
        final boolean[] free = operations.freeSlots();
        for (int op = 0; op < operations.capacity; op++) {
            if (!free[op] && operations.outstanding[op] == 0) {
                release(op);
            }
        }
        operations.clearResume();
    }

    long stagedOperations() {
        return stagedOperations;
    }

    long stagedBytes() {
        return stagedBytes;
    }

    long registeredOperations() {
        return registeredOperations.get();
    }
}
