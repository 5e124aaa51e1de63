package org.gexj.rdma;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The table of operation contexts (libfabric's {@code op_context}, verbs' {@code wr_id}), one per operation a
 * completion can name: {@code [0, sendSlots)} the send buffers, then {@code receiveSlots} receive buffers, then the
 * RMA operation slots. A completion's context is decoded here alone, by {@link #decode}. Immutable after
 * construction; any thread.
 */
final class RdmaContexts {
    /** Bytes of the context passed with each operation: an {@code fi_context2}, enough for either context mode. */
    static final int CONTEXT_BYTES = 64;

    private final MemorySegment table;
    private final long base;
    private final int sendSlots;
    private final int receiveSlots;
    private final int count;

    RdmaContexts(Arena arena, int sendSlots, int receiveSlots, int operations) {
        this.sendSlots = sendSlots;
        this.receiveSlots = receiveSlots;
        this.count = sendSlots + receiveSlots + operations;
        this.table = arena.allocate((long) CONTEXT_BYTES * count, 64);
        this.base = table.address();
    }

    /** The context of send buffer {@code slot}. */
    long send(int slot) {
        return at(slot);
    }

    /** The context of receive buffer {@code buffer}. */
    long receive(int buffer) {
        return at(sendSlots + buffer);
    }

    /** The context of RMA operation slot {@code op}. */
    long operation(int op) {
        return at(sendSlots + receiveSlots + op);
    }

    private long at(int index) {
        return base + (long) index * CONTEXT_BYTES;
    }

    /**
     * @return the index in the table of the context at address {@code context}, or -1 if it is none of this table's (a
     *         provider's own event, or no context)
     */
    int decode(long context) {
        if (context < base) {
            return -1;
        }
        final long index = (context - base) / CONTEXT_BYTES;
        return index < count ? (int) index : -1;
    }

    /** Whether a decoded index (not -1) is a send buffer's. */
    boolean isSend(int index) {
        return index >= 0 && index < sendSlots;
    }

    /** Whether a decoded index is a receive buffer's. */
    boolean isReceive(int index) {
        return index >= sendSlots && index < sendSlots + receiveSlots;
    }

    /** Whether a decoded index is an RMA operation's. */
    boolean isOperation(int index) {
        return index >= sendSlots + receiveSlots;
    }

    /** The receive buffer of an index for which {@link #isReceive} holds. */
    int receiveBufferOf(int index) {
        return index - sendSlots;
    }

    /** The operation slot of an index for which {@link #isOperation} holds. */
    int operationOf(int index) {
        return index - sendSlots - receiveSlots;
    }
}
