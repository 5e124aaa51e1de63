package org.gexj.coll;

import java.lang.foreign.MemorySegment;

/**
 * A user-defined reduction ({@code gex_Coll_ReduceFn_t} with {@code GEX_OP_USER}): combines the first {@code count}
 * elements of {@code in} into those of {@code inOut}, element by element ({@code inOut[i] = in[i] op inOut[i]}); a
 * segment may hold more (the library reuses its buffers). It must be associative and commutative: the library
 * combines in a tree, in an order of its choosing. It may be called with any count, on whichever thread polls, inside
 * the library's progress; it must not block or call GEX/J. An exception it throws fails the collective on this rank
 * and on the team's other ranks.
 */
@FunctionalInterface
public interface ReduceFunction {
    void combine(MemorySegment in, MemorySegment inOut, long count);
}
