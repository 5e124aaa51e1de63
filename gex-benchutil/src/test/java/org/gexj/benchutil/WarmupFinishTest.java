package org.gexj.benchutil;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WarmupFinishTest {
    @Test
    void aDefaultWarmupRunsEveryCountInFullAndALongerOneNoMore() {
        final List<Integer> calls = new ArrayList<>();
        WarmupFinish.scaled(1000, 1000).betweenRows(calls::add);
        assertEquals(WarmupFinish.ROW_CODE_CALLS, calls.size());
        assertEquals(List.of(0, 1, 2), calls.subList(0, 3), "each call gets its index, to vary the row's numbers");
        assertEquals(WarmupFinish.RECOMPILE_BARRIERS, WarmupFinish.scaled(50_000, 1000)
            .count(WarmupFinish.RECOMPILE_BARRIERS));
    }

    @Test
    void aShortWarmupRunsItsShareAndAtLeastOneOfEach() {
        final AtomicInteger rows = new AtomicInteger();
        final WarmupFinish tenth = WarmupFinish.scaled(10, 100);
        tenth.betweenRows(i -> rows.incrementAndGet());
        assertEquals(WarmupFinish.ROW_CODE_CALLS / 10, rows.get());
        assertEquals(1, WarmupFinish.scaled(1, 1_000_000).count(WarmupFinish.SETTLE_BARRIERS));
    }

    @Test
    void finishParksOnceRecompilesWaitsForTheJitAndSettles() {
        final AtomicInteger barriers = new AtomicInteger();
        final long t0 = System.nanoTime();
        WarmupFinish.scaled(1, 100).finish(1, barriers::incrementAndGet);
        final long ms = (System.nanoTime() - t0) / 1_000_000;
        // two parity barriers, the recompiling ones, one after the JIT's wait, the settling ones, one after the spin
        assertEquals(2 + WarmupFinish.RECOMPILE_BARRIERS / 100 + 1 + WarmupFinish.SETTLE_BARRIERS / 100 + 1,
            barriers.get());
        assertTrue(ms >= WarmupFinish.PARKING_WAIT_MS + WarmupFinish.SETTLE_SPIN_NS / 1_000_000,
            "rank 1 sleeps before one barrier, so its peer parks, and both spin before the last: " + ms);
    }

    @Test
    void aDefaultOfNoIterationsIsRefused() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> WarmupFinish.scaled(10, 0));
        assertTrue(e.getMessage().contains("fullAt 0"), e.getMessage());
    }
}
