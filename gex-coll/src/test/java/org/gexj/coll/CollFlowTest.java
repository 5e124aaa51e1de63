package org.gexj.coll;

import org.gexj.coll.wire.CollArgs;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What a team remembers of the collectives it finished, for members' probes: each difference of kind, root and size
 * by its reason, agreement as 0, and nothing for what was never finished or is {@link CollFlow#REMEMBERED} or more
 * collectives old, across the sequence's wrap.
 */
class CollFlowTest {
    private static final int REDUCE_ROOT_2 = CollArgs.word(CollOperation.REDUCE, 0, 2);

    @Test
    void aProbeOfAFinishedCollectiveNamesWhatDiffers() {
        final CollFlow flow = new CollFlow(4);
        flow.finished(7, REDUCE_ROOT_2, 64);
        assertEquals(0, flow.finishedDifferently(7, CollArgs.word(CollOperation.REDUCE, CollArgs.PHASE_PROBE, 2), 64));
        assertEquals(CollOperation.MISMATCHED_ROOT,
            flow.finishedDifferently(7, CollArgs.word(CollOperation.REDUCE, CollArgs.PHASE_PROBE, 0), 64));
        assertEquals(CollOperation.MISMATCHED_KIND,
            flow.finishedDifferently(7, CollArgs.word(CollOperation.BROADCAST, CollArgs.PHASE_PROBE, 2), 64));
        assertEquals(CollOperation.MISMATCHED_LENGTH,
            flow.finishedDifferently(7, CollArgs.word(CollOperation.REDUCE, CollArgs.PHASE_PROBE, 2), 32));
        assertEquals(0, flow.finishedDifferently(8, CollArgs.word(CollOperation.BARRIER, CollArgs.PHASE_PROBE, 0), 0),
            "never finished here: nothing to compare");
    }

    @Test
    void onlyTheLastRememberedAreKeptAcrossTheWrap() {
        final CollFlow flow = new CollFlow(2);
        final int first = Integer.MAX_VALUE - 10;
        for (int i = 0; i <= CollFlow.REMEMBERED; i++) {
            flow.finished(first + i, REDUCE_ROOT_2, 8);
        }
        final int other = CollArgs.word(CollOperation.REDUCE, CollArgs.PHASE_PROBE, 1);
        assertEquals(0, flow.finishedDifferently(first, other, 8), "overwritten by the collective REMEMBERED later");
        assertEquals(CollOperation.MISMATCHED_ROOT, flow.finishedDifferently(first + 1, other, 8));
        assertEquals(CollOperation.MISMATCHED_ROOT, flow.finishedDifferently(first + CollFlow.REMEMBERED, other, 8));
    }
}
