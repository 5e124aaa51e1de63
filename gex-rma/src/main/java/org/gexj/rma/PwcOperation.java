package org.gexj.rma;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** One put or get with completion in flight: a slot of {@link PwcEngine}'s fixed table. */
final class PwcOperation {
    static final VarHandle REMAINING;

    static {
        try {
            REMAINING = MethodHandles.lookup().findVarHandle(PwcOperation.class, "remaining", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final int id;
    /** Messages and RDMA operations still to be answered. */
    volatile int remaining;
    volatile Throwable failure;
    boolean put;
    int peer;
    int handle;
    int flags;
    long remoteOffset;
    long nbytes;
    long localId;
    MemorySegment dst;
    long dstOffset;
    /** A get read by RDMA ({@link PwcRdma}): the read is done. */
    volatile boolean read;
    /** Data writes the NIC failed ({@link PwcRdma}): the slot is retired once its failure is probed. */
    int failedWrites;

    PwcOperation(int id) {
        this.id = id;
    }
}
