package org.gexj.coll.wire;

import org.junit.jupiter.api.Test;

import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

/** A word's kind, phase and root come back as they went in, over their whole ranges. */
class CollArgsProperties {
    @Test
    void aWordKeepsItsKindPhaseAndRoot() {
        qt().forAll(integers().between(0, 15), integers().between(0, 63), integers().between(0, CollArgs.MAX_ROOT))
            .checkAssert((kind, phase, root) -> {
                final int word = CollArgs.word(kind, phase, root);
                org.junit.jupiter.api.Assertions.assertEquals(kind, CollArgs.kind(word));
                org.junit.jupiter.api.Assertions.assertEquals(phase, CollArgs.phase(word));
                org.junit.jupiter.api.Assertions.assertEquals(root, CollArgs.root(word));
            });
    }
}
