package org.gexj.spi;

import java.lang.foreign.MemorySegment;

/**
 * The RMA part of a conduit that moves data itself ({@link Capabilities#nativeRma()}). Every call starts one
 * operation identified by the caller's {@code operation} id and returns at once: {@link Conduit#OK}, or
 * {@link Conduit#NO_ROOM} with nothing started. The operation's completion is reported during a later
 * {@link Conduit#poll} through {@link ConduitListener#onRmaCompletion}: for a put, the data is at the target and the
 * source may be reused; for a get, the data is in the destination. Remote offsets are into the peer's bound segment
 * and are checked by the caller. Any thread may call. Each call happens-before the poll that reports its completion
 * (the rule in {@link Conduit}), which may run on another thread before the call has returned.
 *
 * <p><b>Allocation.</b> A call whose local memory is in this rank's bound segment, or on the Java heap, allocates
 * nothing (operation tables are fixed; heap memory, which the collector moves, is staged through the conduit's
 * pre-registered bounce buffers). A call whose local memory is other native memory allocates nothing either, unless
 * the transport must register local memory (libfabric's {@code FI_MR_LOCAL}, as verbs providers need): then the RDMA
 * conduits register that memory the first time ({@code fi_mr_reg}, {@code ibv_reg_mr}: a kernel call and a small
 * allocation) and keep the registration for later operations on it, up to {@code GEX_REG_CACHE_BYTES}.
 */
public interface RmaTransport {
    /**
     * Completion status: the initiator's local buffer could not be read or written when the operation ran (it was
     * freed or closed meanwhile); nothing was written at the target for a put.
     */
    int ACCESS_ERROR = -10;
    /** Completion status: the target closed (or left the job) before the operation reached it. */
    int PEER_CLOSED = -11;
    /** Completion status: the transport reported the operation failed (ofi: an error entry in its completion queue). */
    int FAILED = -20;

    /** A completion status in words, for messages: {@code OK}, a failure code's meaning, or the unknown number. */
    static String describe(int status) {
        return switch (status) {
            case Conduit.OK -> "OK";
            case ACCESS_ERROR -> "ACCESS_ERROR (" + ACCESS_ERROR + "): the local buffer could not be accessed";
            case PEER_CLOSED -> "PEER_CLOSED (" + PEER_CLOSED + "): the target closed first";
            case FAILED -> "FAILED (" + FAILED + "): the transport failed the operation";
            default -> "unknown status " + status;
        };
    }

    int put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, long operation);

    int get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, long operation);

    /**
     * Whether {@link #putCopying} of {@code nbytes} from {@code src} copies the source before it returns
     * {@link Conduit#OK}. The default: never.
     */
    default boolean copiesSource(MemorySegment src, long nbytes) {
        return false;
    }

    /**
     * A put whose caller wants its source back at once (local completion {@code NOW}): where {@link #copiesSource} is
     * true for it, the transport copies the source before it returns {@link Conduit#OK}, so the caller need not wait
     * for the operation's completion to reuse it; otherwise as {@link #put}. The completion is reported as for
     * {@link #put}. The default is {@link #put}.
     */
    default int putCopying(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes,
                           long operation) {
        return put(peer, remoteOffset, src, srcOffset, nbytes, operation);
    }

    /**
     * A put whose arrival the target sees: once the data is in place there, the target's poll reports
     * {@link ConduitListener#onRemoteWrite} with this rank and {@code immediate} (its low
     * {@link Capabilities#immediateBits()} bits). Only with {@link Capabilities#immediateBits()} non-zero; the
     * default, for transports without remote-write notification, throws (as libfabric's {@code fi_no_*} do).
     *
     * @throws UnsupportedOperationException naming the transport and the capability it lacks
     */
    default int putWithImmediate(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes,
                                 long immediate, long operation) {
        throw new UnsupportedOperationException(getClass().getName() + " has no put with immediate data"
            + " (it needs Capabilities.immediateBits() > 0): nothing was sent to rank " + peer);
    }

    /**
     * Whether {@link #atomic} performs {@code op} on {@code datatype} ({@link AtomicCodes}), and with {@code fetch}
     * also returns the target's previous value ({@link AtomicCodes#READ} only fetching; {@link AtomicCodes#CSWAP}
     * either way). Decided once by the conduit (libfabric's {@code fi_query_atomic}); the caller asks before it uses a
     * combination. The default: none.
     */
    default boolean atomicValid(int datatype, int op, boolean fetch) {
        return false;
    }

    /**
     * Whether the NIC's atomics beat active messages even at their default, so that an atomic domain created without
     * hints takes them: true where the NIC performs them without the target's CPU (verbs; a libfabric provider with
     * atomics in hardware), false where the provider emulates them with messages that the target's progress applies
     * (ofi_rxm, ofi_rxd, shm, sockets), which the AM layer does faster. A domain created with {@code FAVOR_REMOTE}
     * takes the NIC's atomics either way. The default: false.
     */
    default boolean atomicsPreferred() {
        return false;
    }

    /**
     * One atomic operation on one value of {@code datatype} in {@code peer}'s segment at {@code remoteOffset}
     * (checked by the caller: in range and aligned to the type's width), performed by the NIC: atomic with respect to
     * every other operation this method starts on that memory, from any rank, and to nothing else. Operands are the
     * value's bits in the type's width (the low 32 bits for 4-byte types): {@code operand} is what the operation
     * applies (for {@link AtomicCodes#CSWAP}, the value swapped in), {@code compare} the value {@code CSWAP} compares
     * with. With {@code result} (native memory, alive until the completion) the target's previous value is stored
     * there at {@code resultOffset}, in the type's width and native order, before the completion is reported, as for
     * {@link #put}. Any thread may call.
     *
     * @return {@link Conduit#OK}, or {@link Conduit#NO_ROOM} with nothing started
     * @throws UnsupportedOperationException where {@link #atomicValid} is false for it (the default: always)
     */
    default int atomic(int peer, long remoteOffset, int datatype, int op, long operand, long compare,
                       MemorySegment result, long resultOffset, long operation) {
        throw new UnsupportedOperationException(getClass().getName() + " performs no " + AtomicCodes.op(op) + " on "
            + AtomicCodes.datatype(datatype) + " (atomicValid is false): nothing was sent to rank " + peer);
    }

    /**
     * The checks every transport makes before it starts an operation, so that a bad call sends nothing: a segment is
     * attached, the remote range lies in {@code peer}'s segment and the local range in {@code local}.
     *
     * @param conduit      the conduit's name, for the messages
     * @param segmentSizes every rank's segment size, or null before the segment is attached
     * @throws IllegalStateException    if no segment is attached
     * @throws IllegalArgumentException naming the range and its bounds
     */
    static void checkRanges(String conduit, int rank, long[] segmentSizes, int peer, long remoteOffset,
                            MemorySegment local, long localOffset, long nbytes) {
        if (segmentSizes == null) {
            throw new IllegalStateException(conduit + " rank " + rank + " has no segment attached: call attachSegment"
                + " first");
        }
        if (nbytes < 0 || remoteOffset < 0 || remoteOffset > segmentSizes[peer] - nbytes) {
            throw new IllegalArgumentException("remote range [" + remoteOffset + ", " + (remoteOffset + nbytes)
                + ") outside rank " + peer + "'s segment [0, " + segmentSizes[peer] + ")");
        }
        if (nbytes > 0 && (local == null || localOffset < 0 || localOffset > local.byteSize() - nbytes)) {
            throw new IllegalArgumentException("local range [" + localOffset + ", " + (localOffset + nbytes)
                + ") outside the local buffer of " + (local == null ? "null" : local.byteSize() + " bytes"));
        }
    }
}
