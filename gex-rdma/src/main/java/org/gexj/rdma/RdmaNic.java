package org.gexj.rdma;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * The network interface the {@link RdmaEngine} drives: one reliable endpoint that reaches every rank of the job, a
 * completion queue, and memory registration. A conduit implements it over its native API (libfabric for ofi,
 * rdma-core verbs for ibv); the engine knows nothing else of the API.
 *
 * <p><b>Data path</b> ({@link #send}, {@link #inject}, {@link #postReceive}, {@link #transfer}, {@link #writeData},
 * {@link #read}, {@link #progress}): allocates nothing and throws nothing for a runtime condition; each returns
 * {@code 0} (or a count), {@link #AGAIN} when the endpoint cannot take the operation now (the engine retries after
 * progress, and bounds how long), or another negative code, which the engine turns into an exception with
 * {@link #failure}. An operation posted with a {@code context} completes with an entry naming it (an address in the
 * engine's context table); a failed one with an error entry ({@link #readError}).
 *
 * <p><b>Threads</b>: the engine calls every method under its one lock, so an implementation need not be thread-safe
 * (its endpoint may be single-threaded, as {@code FI_THREAD_DOMAIN} or one verbs QP set per rank).
 */
public interface RdmaNic {
    /** The endpoint cannot take the operation now (libfabric's {@code -FI_EAGAIN}). */
    long AGAIN = -11;
    /** A completion read found an error entry instead: read it with {@link #readError} (libfabric's FI_EAVAIL). */
    long ERROR_AVAILABLE = -259;
    /** A completion's source where the NIC names none. */
    long UNKNOWN_SOURCE = -2;
    /** A completion's source outside the job (libfabric's {@code FI_ADDR_NOTAVAIL}). */
    long FOREIGN_SOURCE = -1;

    /** {@link #prepareWait}: the NIC may block on its wait object now. */
    int WAIT_READY = 0;
    /** {@link #prepareWait}: completions or progress are pending; poll instead of blocking. */
    int WAIT_BUSY = 1;
    /** {@link #prepareWait}: the NIC has no wait object. */
    int WAIT_UNSUPPORTED = -1;

    /** The conduit and its provider or device, for messages: "ofi (tcp;ofi_rxm)". */
    String description();

    /** The conduit's name: the prefix of its counters and of its messages ("ofi"). */
    String conduit();

    /** The largest message or RMA chunk the endpoint moves at once. */
    long maxMessageSize();

    /** Whether a message of {@code length} bytes goes by {@link #inject}. */
    boolean injects(long length);

    /** Bytes of remote completion data a {@link #writeData} delivers: 0, 4 or 8. */
    long completionDataBytes();

    /** Whether local memory of an operation needs a registration's descriptor (else descriptors are 0). */
    boolean localRegistration();

    /** Whether peers address registered memory by virtual address rather than by offset in the registration. */
    boolean virtualAddresses();

    /**
     * Whether one receive buffer takes many messages (libfabric's {@code FI_MULTI_RECV}: credits then count bytes),
     * or each message fills a buffer of its own (a verbs shared receive queue: credits then count messages).
     */
    boolean multiReceive();

    /** Whether {@link #read} names each entry's source ({@link RdmaCompletions#source}). */
    boolean namesSources();

    /** The source value the NIC's completions give for messages from {@code peer}. */
    long address(int peer);

    /**
     * Registers {@code memory} for local use and, with {@code remote}, for peers' RMA (control path, under the lock).
     * With {@code untilClose} it is released by the NIC's own close; otherwise the caller closes it.
     *
     * @throws RuntimeException the conduit's exception, naming the call that failed
     */
    RdmaRegion register(MemorySegment memory, boolean remote, boolean untilClose);

    /** Sends {@code length} bytes at {@code buffer} to {@code peer}; completes with {@code context}. */
    long send(long buffer, long length, long descriptor, int peer, long context);

    /** Sends a message of at most the inject size: the buffer is free on return, and no completion follows. */
    long inject(long buffer, long length, int peer);

    /**
     * Posts a receive buffer. Where the NIC lands many messages in one buffer, their entries name it and the last
     * ({@link RdmaCompletions#releases}) gives it back; otherwise each message's entry releases it.
     */
    long postReceive(long buffer, long length, long descriptor, long context);

    /**
     * An RDMA write, or with {@code read} an RDMA read, of one chunk; completes with {@code context}. A write's
     * completion is its put's remote completion: it must come only once the bytes are in the target's memory, not
     * when they have merely left this process (a target that must poll to place them delays it until it does).
     */
    long transfer(boolean read, long local, long length, long descriptor, int peer, long remote, long key,
                  long context);

    /** An RDMA write of one chunk that delivers {@code data} to the target's completion queue. */
    long writeData(long local, long length, long descriptor, long data, int peer, long remote, long key,
                   long context);

    /** {@link #atomic}'s kinds: no result, the previous value returned, or a compare-and-swap returning it. */
    int ATOMIC_WRITE = 0;
    int ATOMIC_FETCH = 1;
    int ATOMIC_COMPARE = 2;

    /**
     * Whether {@link #atomic} takes {@code op} on {@code datatype} ({@link org.gexj.spi.AtomicCodes}) as {@code kind}
     * (control path: the engine asks once per combination). The default: none.
     */
    default boolean atomicValid(int datatype, int op, int kind) {
        return false;
    }

    /** {@link org.gexj.spi.RmaTransport#atomicsPreferred}. The default: false. */
    default boolean atomicsPreferred() {
        return false;
    }

    /**
     * One atomic on one value of {@code datatype} at {@code remote} in {@code peer}'s memory under {@code key};
     * completes with {@code context}. The engine's registered staging (under {@code descriptor}) holds the operand at
     * {@code staging}, the compare value at {@code staging + 8}, and takes the previous value at
     * {@code staging + 16}; the values come by value too, for NICs whose work requests carry them. Only what
     * {@link #atomicValid} allows; the default, for a NIC without atomics, throws.
     */
    default long atomic(int kind, int datatype, int op, long operand, long compare, long staging, long descriptor,
                        int peer, long remote, long key, long context) {
        throw new UnsupportedOperationException(description() + " has no atomics");
    }

    /** Entries for {@code capacity} completions, to {@link #read} into. */
    RdmaCompletions completions(Arena arena, int capacity);

    /** Reads up to {@code count} completions: their number, {@link #AGAIN} if none, {@link #ERROR_AVAILABLE}. */
    long read(RdmaCompletions entries, int count);

    /**
     * Whether {@code peer} takes part in the close's CLOSE exchange: whether an endpoint toward it exists or is being
     * made. Always, unless the NIC connects on demand (ibv's {@code GEX_IBV_CONNECT=ondemand}): two ranks that never
     * exchanged anything have nothing to drain, and connecting them only to say CLOSE would defeat the point. Both
     * sides of a pair agree once the connection's exchange has begun on either, and the close's own polling
     * completes it.
     */
    default boolean engaged(int peer) {
        return true;
    }

    /**
     * Whether receive buffers are posted per connected rank rather than for every rank at start. A NIC that connects
     * on demand, with each message filling a buffer of its own, may say so: it then runs {@code connecting} (under the
     * engine's lock, also from inside its own calls) as it starts connecting each peer, before that peer can send to
     * this rank, and the engine posts that peer's share of buffers then. The default: false, all are posted at start.
     */
    default boolean receivesPerConnection(Runnable connecting) {
        return false;
    }

    /**
     * Under the lock, before {@link #awaitActivity}: whether the NIC can wait for activity at all, and if so whether it
     * may block now ({@code fi_trywait}). The default: {@link #WAIT_UNSUPPORTED}, the engine parks instead.
     *
     * @return {@link #WAIT_READY}, {@link #WAIT_BUSY} (poll first: something is pending) or {@link #WAIT_UNSUPPORTED}
     */
    default int prepareWait() {
        return WAIT_UNSUPPORTED;
    }

    /**
     * Without the lock, after {@link #prepareWait} said {@link #WAIT_READY}: blocks up to {@code nanos} on the NIC's
     * wait object. Any thread may call, several at once. The default, for a NIC without one: parks.
     *
     * @return true if the wait object fired (a poll has something to do), false when the time ran out
     */
    default boolean awaitActivity(long nanos) {
        LockSupport.parkNanos(nanos);
        return false;
    }

    /**
     * {@link org.gexj.spi.Conduit#yieldsWhileWaiting}: whether a waiting thread should yield between polls. The
     * default: true.
     */
    default boolean yieldsWhileWaiting() {
        return true;
    }

    /** Drives the provider's progress without taking any completion. */
    void progress();

    /** An error entry, to {@link #readError} into. */
    RdmaErrorEntry errorEntry(Arena arena);

    /** Reads the error entry a {@link #read} announced: 1 if one was read. */
    long readError(RdmaErrorEntry entry);

    /** The text of a negative code. */
    String strerror(long code);

    /** The conduit's exception for a call that failed with {@code code}. */
    RuntimeException failure(String call, long code);
}
