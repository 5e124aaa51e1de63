package org.gexj.coll;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A user-defined reduction ({@code gex_Coll_ReduceFn_t}): combines the first {@code count} elements of {@code in} into
 * those of {@code inOut}, element by element ({@code inOut[i] = in[i] op inOut[i]}, MPI's order: {@code in} holds the
 * lower ranks' value); a segment may hold more (the library reuses its buffers). It must be associative. A lambda is
 * taken as commutative too ({@code GEX_OP_USER}): the library combines in a tree, in an order of its choosing.
 * {@link #nonCommutative} wraps one that is not ({@code GEX_OP_USER_NC}): the result is then
 * {@code x0 op x1 op ... op x(n-1)}, the members' values in team rank order, at some cost (the tree is rooted at team
 * rank 0, and a reduce-to-one to another root takes one more step).
 *
 * <p>It may be called with any count, on whichever thread polls, inside the library's progress; it must not block or
 * call GEX/J. An exception it throws fails the collective on this rank and on the team's other ranks.
 */
@FunctionalInterface
public interface ReduceFunction {
    void combine(MemorySegment in, MemorySegment inOut, long count);

    /** Whether the library may combine values in any order: true unless made by {@link #nonCommutative}. */
    default boolean commutative() {
        return true;
    }

    /** {@code op}, declared non-commutative ({@code GEX_OP_USER_NC}): combined in team rank order. */
    static ReduceFunction nonCommutative(ReduceFunction op) {
        Objects.requireNonNull(op, "op");
        return new ReduceFunction() {
            @Override
            public void combine(MemorySegment in, MemorySegment inOut, long count) {
                op.combine(in, inOut, count);
            }

            @Override
            public boolean commutative() {
                return false;
            }
        };
    }
}
