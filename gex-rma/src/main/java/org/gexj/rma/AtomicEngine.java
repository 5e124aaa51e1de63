package org.gexj.rma;

import org.gexj.Event;

import java.lang.foreign.MemorySegment;

/** How an {@link AtomicDomain} reaches the values it does not change with the CPU: AM or the NIC. */
interface AtomicEngine {
    /**
     * Starts {@code op} on {@code peer}'s segment at {@code offset} (checked by the caller); operands as the domain
     * encodes them. Adds one to {@code completion}, which completes once the target's value changed and, if
     * {@code result} is not null, its previous value is stored there.
     *
     * @return {@link org.gexj.am.Am#OK}, or {@link org.gexj.am.Am#BACK_PRESSURED} with nothing started if
     *         {@code immediate} and resources were short
     */
    int start(AtomicType type, AtomicOp op, int peer, long offset, long a, long b, MemorySegment result,
              long resultOffset, Event completion, boolean immediate);
}
