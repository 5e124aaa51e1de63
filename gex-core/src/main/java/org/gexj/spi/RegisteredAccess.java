package org.gexj.spi;

import java.lang.foreign.MemorySegment;
import java.util.OptionalLong;

/**
 * Zero-copy access to peers' registered memory ({@code Client.register}), for conduits that can move it without the
 * owner's help: smp with Cross Memory Attach ({@code process_vm_readv}/{@code process_vm_writev}), the LRTS zero-copy
 * path within a host, and conduits over RDMA NICs that register the memory for peers' RMA ({@link #publish} returns the
 * key their descriptors carry; their {@link RegisteredRmaTransport} moves the data, their NIC refuses). The core
 * {@link #publish}es each registration when it is made and {@link #withdraw}s it when it is closed (or found with its
 * arena closed); the RMA layer tries {@link #put}/{@link #get} first and sends the operation over AM when the answer is
 * {@link #ELSEWHERE}.
 *
 * <p>The owner's checks stay the owner's: a put or get is refused, with nothing moved, when the handle names no
 * published registration, the range lies outside it, or (a put) it is read-only, exactly as the AM path's owner
 * refuses. A withdrawal returns only once no access through the handle is in progress, so after
 * {@code Registration.close()} no peer writes the memory.
 *
 * <p>Threads: {@link #put} and {@link #get} from any thread, synchronously (the data has moved when they return);
 * {@link #publish} and {@link #withdraw} from the owner's registering threads.
 */
public interface RegisteredAccess {
    /** Moved. */
    int OK = 0;
    /** Not reachable directly (not published, heap memory, a peer without zero copy): use messages. */
    int ELSEWHERE = 1;
    /** Refused: the handle names no published registration (closed, or never made). */
    int NOT_REGISTERED = 2;
    /** Refused: the range lies outside the registration. */
    int OUT_OF_RANGE = 3;
    /** Refused: a put into read-only memory. */
    int READ_ONLY = 4;
    /** The owner's memory could not be accessed (its arena closed and its pages were unmapped); nothing moved. */
    int FAULT = 5;

    /**
     * Bits of a handle that name its slot in the owner's table ({@link #slotOf}); the bits above are the slot's
     * generation. Freed slots are reused before new ones are taken, so open registrations have distinct, small slots.
     */
    int SLOT_BITS = 20;

    /** The slot of {@code handle} in its owner's table. */
    static int slotOf(int handle) {
        return handle & ((1 << SLOT_BITS) - 1);
    }

    /**
     * Makes registration {@code handle} of {@code memory} reachable directly by the job's ranks, where it can (read
     * only, if the segment is).
     *
     * @return the NIC's remote key where peers reach it by RDMA with {@link RegisteredRmaTransport#putRegistered} (the
     *         descriptor carries it), else empty
     * @throws RuntimeException the conduit's exception if the NIC refused the registration (nothing is published)
     */
    OptionalLong publish(int handle, MemorySegment memory);

    /**
     * Whether peers {@link #get} from this rank's registration {@code handle} here directly and at once, whatever the
     * length, so that an AM Long from it may travel as descriptor-then-get (the target pulls the payload:
     * {@code GEX_AMLONG_RENDEZVOUS_MIN}). False where peers reach it otherwise (RDMA started by the RMA layer) or not
     * at all.
     */
    boolean pullable(int handle);

    /** Makes it unreachable; returns once no access through it is in progress (bounded: a dead peer's is given up). */
    void withdraw(int handle);

    /**
     * Puts {@code nbytes} of {@code src} into {@code peer}'s registration {@code handle} at {@code offset}.
     *
     * @return {@link #OK}, {@link #ELSEWHERE} (nothing moved: use messages), or a refusal
     */
    int put(int peer, int handle, long offset, MemorySegment src, long srcOffset, long nbytes);

    /**
     * Gets {@code nbytes} of {@code peer}'s registration {@code handle} at {@code offset} into {@code dst}.
     *
     * @return {@link #OK}, {@link #ELSEWHERE} (nothing moved: use messages), or a refusal
     */
    int get(MemorySegment dst, long dstOffset, int peer, int handle, long offset, long nbytes);

    /**
     * As {@link #get}, for a payload the owner offered as {@link #pullable}: at any length, waiting out a moment when
     * every copying slot is busy.
     *
     * @return {@link #OK}, or a refusal; {@link #ELSEWHERE} only where the owner's registration is not pullable here
     */
    int pull(MemorySegment dst, long dstOffset, int peer, int handle, long offset, long nbytes);
}
