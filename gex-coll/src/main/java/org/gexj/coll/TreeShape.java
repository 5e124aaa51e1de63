package org.gexj.coll;

/**
 * A k-nomial tree over a team's ranks, rooted anywhere: with radix 2 a binomial tree (log2 n steps, for large data
 * and large teams), with radix n a flat one (the root talks to every rank: one step, for small data on small teams).
 * Ranks are relative to the root ({@code (rank - root) mod n}); a rank's subtree is the relative ranks from it up to
 * the next multiple of its level's span.
 */
final class TreeShape {
    final int parent;
    final int[] children;

    /** The shape seen from team rank {@code rank} of a team of {@code size}. */
    TreeShape(int rank, int size, int root, int radix) {
        final int relative = Math.floorMod(rank - root, size);
        long span = 1; // k^level: the subtree of a rank at this level spans `span` relative ranks
        int parentRelative = -1;
        while (span < size) {
            final long next = span * radix;
            final long offset = relative % next;
            if (offset != 0) {
                parentRelative = (int) (relative - offset);
                break;
            }
            span = next;
        }
        this.parent = parentRelative < 0 ? -1 : (parentRelative + root) % size;
        int count = 0;
        final int[] found = new int[size];
        // children by increasing subtree, nearest first: the combination order is fixed for a given shape
        for (long s = 1; s < span && s < size; s *= radix) {
            for (int j = 1; j < radix; j++) {
                final long child = relative + j * s;
                if (child >= size) {
                    break;
                }
                found[count++] = (int) ((child + root) % size);
            }
        }
        this.children = java.util.Arrays.copyOf(found, count);
    }
}
