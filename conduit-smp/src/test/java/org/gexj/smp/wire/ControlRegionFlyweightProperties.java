package org.gexj.smp.wire;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ControlRegionFlyweightProperties {
    private static UnsafeBuffer region(int ranks) {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(ControlRegionFlyweight.length(ranks)));
    }

    @Property
    void headerRoundTrips(@ForAll @IntRange(min = 1, max = 4096) int ranks) {
        final UnsafeBuffer memory = region(ranks);
        final ControlRegionFlyweight creator = new ControlRegionFlyweight().wrap(memory, ranks);
        assertEquals(0, creator.version(), "a zero-filled region is not initialised");
        creator.initialise();
        final ControlRegionFlyweight peer = new ControlRegionFlyweight().wrap(memory, ranks);
        assertEquals(ControlRegionFlyweight.VERSION, peer.version());
        assertEquals(ranks, peer.ranks());
        assertEquals(ControlRegionFlyweight.VERSION, memory.getInt(0), "the version comes first");
    }

    /** Each rank's epoch reads back as written, whatever the others wrote: the lines do not overlap. */
    @Property
    void epochsRoundTripIndependently(@ForAll @Size(min = 1, max = 300) List<Long> epochs) {
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
    }

    /** A phase is complete exactly when the slowest rank has entered it. */
    @Property
    void allReachedMeansTheMinimumHasReached(@ForAll @Size(min = 1, max = 64) List<@IntRange(max = 1 << 20) Integer> epochs,
                                             @ForAll @IntRange(max = 1 << 20) int phase) {
        final int ranks = epochs.size();
        final ControlRegionFlyweight region = new ControlRegionFlyweight().wrap(region(ranks), ranks).initialise();
        for (int r = 0; r < ranks; r++) {
            region.publishEpoch(r, epochs.get(r));
        }
        final int slowest = epochs.stream().mapToInt(Integer::intValue).min().orElseThrow();
        assertEquals(slowest >= phase, region.allReached(phase));
    }

    @Property
    void aRegionTooSmallForTheRanksIsRefused(@ForAll @IntRange(min = 1, max = 1024) int ranks) {
        final UnsafeBuffer small = new UnsafeBuffer(ByteBuffer.allocateDirect(ControlRegionFlyweight.length(ranks) - 8));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new ControlRegionFlyweight().wrap(small, ranks));
        assertEquals("control region of " + small.capacity() + " bytes is smaller than the "
            + ControlRegionFlyweight.length(ranks) + " needed for " + ranks + " ranks", e.getMessage());
    }
}
