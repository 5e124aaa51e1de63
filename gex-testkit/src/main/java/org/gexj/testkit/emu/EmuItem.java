package org.gexj.testkit.emu;

import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.MemorySegment;

/**
 * One thing in flight between emu ranks, owned by the {@link EmuPool} of its sender and reused, so that nothing is
 * allocated per message: an AM frame (its send buffer), or an RMA operation, which travels to its target as
 * {@link #PUT}, {@link #PUT_IMMEDIATE} or {@link #GET}, lands there, and comes back to its initiator as a
 * {@link #COMPLETION} (on the way, a {@link #DUPLICATE_TAG} when the target reports a put-with-immediate twice).
 *
 * <p>Fields are written by whichever thread holds the item (the claimer, then the target's poll, then the
 * initiator's poll); the queues that hand it over order those writes.
 */
final class EmuItem {
    static final int FRAME = 0;
    static final int PUT = 1;
    static final int PUT_IMMEDIATE = 2;
    static final int GET = 3;
    static final int DUPLICATE_TAG = 4;
    static final int COMPLETION = 5;
    /** The target's report of a landed put-with-immediate, from its own pool of notes. */
    static final int REMOTE_WRITE = 6;
    /** An atomic ({@link EmuAtomics}) that lands like a get: its previous value comes back into {@link #local}. */
    static final int ATOMIC = 7;

    /** In its pool. */
    static final int FREE = 0;
    /** Taken from the pool by a claim, not yet committed or aborted. */
    static final int CLAIMED = 1;
    /** Committed or started: in a queue, a pending set or a delivery. */
    static final int IN_FLIGHT = 2;

    final EmuPool pool;
    /** Place in the pool; a frame's {@link org.gexj.spi.Claim#handle()}. */
    final int index;
    /** A frame's send buffer; null for RMA items. */
    final UnsafeBuffer buffer;

    int state = FREE;
    /** Index of the next free item below this one in its pool's stack, while it is free. */
    int next;
    int kind;
    /** The sender of a frame, the initiator of an RMA operation. */
    int source;
    int channel;
    int length;
    /** The initiator's memory: a put's source, a get's destination. */
    MemorySegment local;
    long localOffset;
    long remoteOffset;
    long nbytes;
    long immediate;
    /** An atomic's libfabric datatype and operation, and its operands. */
    int datatype;
    int atomicOp;
    long operand;
    long compare;
    long operation;
    int status;
    /** The receiver's poll count from which it may deliver the item. */
    long readyAt;
    /** {@link System#nanoTime()} from which it has arrived at its receiver, with {@code GEX_EMU_LATENCY_US} > 0. */
    long dueAt;

    EmuItem(EmuPool pool, int index, int frameLength) {
        this.pool = pool;
        this.index = index;
        this.buffer = frameLength > 0 ? new UnsafeBuffer(new byte[frameLength]) : null;
    }

    boolean from(EmuPool p) {
        return pool == p;
    }

    /** Back to the sender's pool; drops the reference to the initiator's memory. */
    void release() {
        local = null;
        pool.give(this);
    }
}
