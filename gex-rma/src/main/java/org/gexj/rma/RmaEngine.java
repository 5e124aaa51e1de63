package org.gexj.rma;

import org.gexj.Event;

import java.lang.foreign.MemorySegment;

/**
 * How one conduit family moves RMA data. Arguments are already checked. Each call adds its sub-operations to
 * {@code completion} ({@code CoreAccess.begin}) and completes them when the data is at the target (put) or in the local
 * destination (get); engines that finish at once touch nothing, and {@link #synchronous()} ones are given null.
 */
interface RmaEngine {
    /**
     * @param local if not null, completed when {@code src} may be reused; engines that copy the source before returning
     *              leave it untouched (complete)
     */
    void put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, Event completion,
             Event local);

    void get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, Event completion);

    /** True if every operation is complete when put/get return (so NB calls return {@link Event#DONE}). */
    boolean synchronous();
}
