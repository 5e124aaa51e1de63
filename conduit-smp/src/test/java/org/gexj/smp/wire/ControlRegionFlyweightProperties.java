package org.gexj.smp.wire;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

class ControlRegionFlyweightProperties {
    private static UnsafeBuffer region(int ranks) {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(ControlRegionFlyweight.length(ranks)));
    }

    /** One draw in ten is an edge value: random draws alone almost never hit the bounds or ties. */
    @SafeVarargs
    private static <T> Gen<T> edgeBiased(Gen<T> values, T... edges) {
        return Generate.frequency(Pair.of(9, values), Pair.of(1, Generate.pick(List.of(edges))));
    }

    private static <T> Gen<List<T>> listsOf(Gen<T> values, int minSize, int maxSize) {
        return lists().of(values).ofType(lists().<T, List<T>>arrayList()).ofSizeBetween(minSize, maxSize);
    }

    @Test
    void headerRoundTrips() {
        qt().withExamples(1000).forAll(integers().between(1, 4096)).checkAssert(ranks -> {
            final UnsafeBuffer memory = region(ranks);
            final ControlRegionFlyweight creator = new ControlRegionFlyweight().wrap(memory, ranks);
            assertEquals(0, creator.version(), "a zero-filled region is not initialised");
            creator.initialise();
            final ControlRegionFlyweight peer = new ControlRegionFlyweight().wrap(memory, ranks);
            assertEquals(ControlRegionFlyweight.VERSION, peer.version());
            assertEquals(ranks, peer.ranks());
            assertEquals(ControlRegionFlyweight.VERSION, memory.getInt(0), "the version comes first");
        });
    }

    /** Each rank's epoch reads back as written, whatever the others wrote: the lines do not overlap. */
    @Test
    void epochsRoundTripIndependently() {
        final Gen<Long> epoch = edgeBiased(longs().all(), 0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE);
        qt().withExamples(1000).forAll(listsOf(epoch, 1, 300)).checkAssert(epochs -> {
            final int ranks = epochs.size();
            final UnsafeBuffer memory = region(ranks);
            final ControlRegionFlyweight region = new ControlRegionFlyweight().wrap(memory, ranks).initialise();
            for (int r = 0; r < ranks; r++) {
                region.publishEpoch(r, epochs.get(r));
            }
            for (int r = 0; r < ranks; r++) {
                assertEquals(epochs.get(r), region.epoch(r));
                assertEquals(0, memory.getLong(ControlRegionFlyweight.LINE * (r + 1) + 8), "padding untouched");
            }
            assertEquals(ranks, region.ranks());
            assertEquals(ControlRegionFlyweight.VERSION, region.version());
        });
    }

    /** A phase is complete exactly when the slowest rank has entered it. */
    @Test
    void allReachedMeansTheMinimumHasReached() {
        final Gen<Integer> epoch = edgeBiased(integers().between(0, 1 << 20), 0, 1, (1 << 20) - 1, 1 << 20);
        qt().withExamples(1000).forAll(listsOf(epoch, 1, 64), epoch).checkAssert((epochs, phase) -> {
            final int ranks = epochs.size();
            final ControlRegionFlyweight region = new ControlRegionFlyweight().wrap(region(ranks), ranks).initialise();
            for (int r = 0; r < ranks; r++) {
                region.publishEpoch(r, epochs.get(r));
            }
            final int slowest = epochs.stream().mapToInt(Integer::intValue).min().orElseThrow();
            assertEquals(slowest >= phase, region.allReached(phase));
        });
    }

    @Test
    void aRegionTooSmallForTheRanksIsRefused() {
        qt().withExamples(1000).forAll(integers().between(1, 1024)).checkAssert(ranks -> {
            final UnsafeBuffer small =
                new UnsafeBuffer(ByteBuffer.allocateDirect(ControlRegionFlyweight.length(ranks) - 8));
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ControlRegionFlyweight().wrap(small, ranks));
            assertEquals("control region of " + small.capacity() + " bytes is smaller than the "
                + ControlRegionFlyweight.length(ranks) + " needed for " + ranks + " ranks", e.getMessage());
        });
    }
}
