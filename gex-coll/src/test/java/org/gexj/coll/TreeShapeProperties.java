package org.gexj.coll;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

/**
 * Every k-nomial tree is a spanning tree rooted at its root: each other rank has exactly one parent, which lists it
 * as a child; the root has none; following parents reaches the root within log_k(n) + 1 steps (so no cycles); a
 * radix of n or more is flat.
 */
class TreeShapeProperties {
    @Test
    void everyShapeIsASpanningTreeRootedAtItsRoot() {
        qt().forAll(integers().between(1, 70), integers().between(0, 69), integers().between(2, 72))
            .checkAssert((n, drawn, radix) -> {
                final int root = drawn % n;
                final TreeShape[] shapes = new TreeShape[n];
                for (int r = 0; r < n; r++) {
                    shapes[r] = new TreeShape(r, n, root, radix);
                }
                final int[] parents = new int[n];
                java.util.Arrays.fill(parents, -2);
                for (int r = 0; r < n; r++) {
                    for (int c : shapes[r].children) {
                        assertEquals(-2, parents[c], "rank " + c + " has two parents");
                        parents[c] = r;
                    }
                }
                for (int r = 0; r < n; r++) {
                    assertEquals(r == root ? -1 : parents[r], shapes[r].parent, "parent of " + r);
                    int at = r;
                    int steps = 0;
                    while (at != root) {
                        at = shapes[at].parent;
                        assertTrue(++steps <= 32, "rank " + r + " does not reach the root");
                    }
                }
                if (radix >= n) {
                    assertEquals(n - 1, shapes[root].children.length, "a flat tree's root talks to every rank");
                }
            });
    }
}
