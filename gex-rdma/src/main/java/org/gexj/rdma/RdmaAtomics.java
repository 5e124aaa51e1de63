package org.gexj.rdma;

import org.gexj.spi.AtomicCodes;
import org.gexj.spi.Conduit;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * Remote atomics by the NIC ({@link RdmaNic#atomic}: libfabric's {@code fi_atomic}, {@code fi_fetch_atomic} and
 * {@code fi_compare_atomic}, verbs' 64-bit fetch-and-add and compare-and-swap). Each operation takes a slot of the RMA
 * engine's {@link RdmaOperations}, so that its completion, failure and the close's drain are those of any RMA
 * operation; the engine calls {@link #finish} at its completion. Each slot owns {@link #STAGING} bytes of memory
 * registered once: the operand, the compare value and the previous value the NIC returns, which {@link #finish} copies
 * to the caller's result. Nothing is allocated per operation.
 *
 * <p>Threads: {@link #start} from any thread (it takes the lock); {@link #finish} under the lock.
 */
final class RdmaAtomics {
    /** Staging bytes per slot: operand at 0, compare value at 8, previous value at 16. */
    static final int STAGING = 24;
    private static final int DATATYPES = AtomicCodes.DOUBLE + 1;
    private static final int OPS = AtomicCodes.CSWAP + 1;

    private final RdmaGuard guard;
    private final RdmaNic nic;
    private final RdmaContexts contexts;
    private final RdmaOperations operations;
    private final MemorySegment staging;
    private final long stagingDescriptor;
    /** [datatype][op][kind]: what the NIC performs, asked once. */
    private final boolean[][][] valid;
    private final MemorySegment[] result;
    private final long[] resultOffset;
    private final int[] width;
    private final AtomicLong started = new AtomicLong();

    RdmaAtomics(RdmaGuard guard, RdmaNic nic, RdmaContexts contexts, RdmaOperations operations, Arena arena) {
        this.guard = guard;
        this.nic = nic;
        this.contexts = contexts;
        this.operations = operations;
        this.valid = new boolean[DATATYPES][OPS][3];
        boolean any = false;
        for (int datatype = AtomicCodes.INT32; datatype < DATATYPES; datatype++) {
            for (int op = 0; op < OPS; op++) {
                for (int kind = RdmaNic.ATOMIC_WRITE; kind <= RdmaNic.ATOMIC_COMPARE; kind++) {
                    valid[datatype][op][kind] = nic.atomicValid(datatype, op, kind);
                    any |= valid[datatype][op][kind];
                }
            }
        }
        final int slots = operations.capacity;
        // a NIC without atomics registers nothing for them
        this.staging = arena.allocate(any ? (long) STAGING * slots : 8, 8);
        this.stagingDescriptor = any && nic.localRegistration() ? nic.register(staging, false, true).descriptor() : 0;
        this.result = new MemorySegment[slots];
        this.resultOffset = new long[slots];
        this.width = new int[slots];
    }

    /** {@link org.gexj.spi.RmaTransport#atomicsPreferred}. */
    boolean preferred() {
        return nic.atomicsPreferred();
    }

    /** {@link org.gexj.spi.RmaTransport#atomicValid}. */
    boolean valid(int datatype, int op, boolean fetch) {
        if (datatype < AtomicCodes.INT32 || datatype >= DATATYPES || op < 0 || op >= OPS) {
            return false;
        }
        return valid[datatype][op][kind(op, fetch)];
    }

    private static int kind(int op, boolean fetch) {
        return op == AtomicCodes.CSWAP ? RdmaNic.ATOMIC_COMPARE : fetch ? RdmaNic.ATOMIC_FETCH : RdmaNic.ATOMIC_WRITE;
    }

    /**
     * Starts one atomic ({@link org.gexj.spi.RmaTransport#atomic}) on the remote memory the engine resolved
     * ({@code remote}, {@code key}); the caller checked the peer and the range.
     *
     * @return {@link Conduit#OK}, or {@link Conduit#NO_ROOM} with nothing started
     */
    int start(int peer, long remote, long key, int datatype, int op, long operand, long compare, MemorySegment into,
              long intoOffset, long operation) {
        final boolean fetch = into != null;
        if (!valid(datatype, op, fetch)) {
            throw new UnsupportedOperationException(nic.description() + " performs no " + (fetch ? "fetching " : "")
                + AtomicCodes.op(op) + " on " + AtomicCodes.datatype(datatype) + ": nothing was sent to rank " + peer);
        }
        final int bytes = AtomicCodes.bytes(datatype);
        if (fetch && (!into.isNative() || intoOffset < 0 || intoOffset > into.byteSize() - bytes)) {
            throw new IllegalArgumentException("atomic result at offset " + intoOffset + " of " + into.byteSize()
                + (into.isNative() ? "" : " heap") + " bytes: it needs " + bytes + " bytes of native memory");
        }
        guard.lockOpen();
        try {
            final int slot = operations.take();
            if (slot < 0) {
                return Conduit.NO_ROOM;
            }
            operations.kind[slot] = RdmaOperations.ATOMIC;
            operations.peer[slot] = peer;
            operations.operation[slot] = operation;
            operations.remoteAddress[slot] = remote;
            operations.key[slot] = key;
            operations.total[slot] = bytes;
            operations.submitted[slot] = bytes;
            operations.outstanding[slot] = 0;
            operations.status[slot] = Conduit.OK;
            result[slot] = into;
            resultOffset[slot] = intoOffset;
            width[slot] = bytes;
            final long at = (long) slot * STAGING;
            if (bytes == 4) {
                staging.set(JAVA_INT, at, (int) operand);
                staging.set(JAVA_INT, at + 8, (int) compare);
            } else {
                staging.set(JAVA_LONG, at, operand);
                staging.set(JAVA_LONG, at + 8, compare);
            }
            final long rc = nic.atomic(kind(op, fetch), datatype, op, operand, compare, staging.address() + at,
                stagingDescriptor, peer, remote, key, contexts.operation(slot));
            if (rc != 0) {
                result[slot] = null;
                operations.release(slot);
                if (rc == RdmaNic.AGAIN) {
                    return Conduit.NO_ROOM;
                }
                throw nic.failure("atomic " + AtomicCodes.op(op) + " on " + AtomicCodes.datatype(datatype)
                    + " to rank " + peer, rc);
            }
            operations.outstanding[slot] = 1;
            started.incrementAndGet();
            return Conduit.OK;
        } finally {
            guard.unlock();
        }
    }

    /** The atomic in {@code slot} completed (under the lock): its previous value to the caller's result if it did. */
    void finish(int slot, boolean succeeded) {
        final MemorySegment into = result[slot];
        if (into != null && succeeded) {
            final long at = (long) slot * STAGING + 16;
            if (width[slot] == 4) {
                into.set(JAVA_INT_UNALIGNED, resultOffset[slot], staging.get(JAVA_INT, at));
            } else {
                into.set(JAVA_LONG_UNALIGNED, resultOffset[slot], staging.get(JAVA_LONG, at));
            }
        }
        result[slot] = null;
    }

    /** Atomics started (for the conduit's counters). */
    long started() {
        return started.get();
    }
}
