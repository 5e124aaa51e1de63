package org.gexj.internal;

import org.gexj.Config;
import org.gexj.spi.Conduit;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The back-off spins, yields, then waits in the conduit for times that double up to the longest; a wait that the
 * conduit ends for activity, and any work, start it again from spinning.
 */
class ConduitIdleStrategyTest {
    private final List<Long> waits = new ArrayList<>();
    /** What the conduit's next waits answer: true = woken by activity; false once empty. */
    private final Deque<Boolean> answers = new ArrayDeque<>();
    private final Conduit conduit = (Conduit) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {Conduit.class}, (proxy, method, args) -> {
            if (!method.getName().equals("awaitActivity")) {
                throw new UnsupportedOperationException("test double: only awaitActivity, not " + method.getName());
            }
            waits.add((Long) args[0]);
            return answers.isEmpty() ? Boolean.FALSE : answers.poll();
        });

    private ConduitIdleStrategy strategy(int spins, int yields, int parkUs, int parkMaxUs) {
        return WaitSettings.of(Config.of(Map.of("GEX_WAIT_SPINS", Integer.toString(spins), "GEX_WAIT_YIELDS",
            Integer.toString(yields), "GEX_WAIT_PARK_US", Integer.toString(parkUs), "GEX_WAIT_PARK_MAX_US",
            Integer.toString(parkMaxUs)))).newIdleStrategy(conduit);
    }

    @Test
    void spinsThenYieldsThenWaitsInTheConduitForDoublingTimes() {
        final ConduitIdleStrategy idle = strategy(3, 2, 10, 50);
        for (int i = 0; i < 5; i++) {
            idle.idle(0);
        }
        assertEquals(List.of(), waits, "3 spins and 2 yields come first");
        for (int i = 0; i < 5; i++) {
            idle.idle(0);
        }
        assertEquals(List.of(10_000L, 20_000L, 40_000L, 50_000L, 50_000L), waits);
    }

    @Test
    void aWaitEndedByActivityStartsTheBackOffAgain() {
        final ConduitIdleStrategy idle = strategy(2, 0, 10, 1000);
        answers.addAll(List.of(false, false, true));
        for (int i = 0; i < 2 + 3 + 2 + 1; i++) {
            idle.idle(0);
        }
        assertEquals(List.of(10_000L, 20_000L, 40_000L, 10_000L), waits, "after the woken wait: 2 spins, then 10 us");
    }

    @Test
    void workStartsTheBackOffAgain() {
        final ConduitIdleStrategy idle = strategy(0, 0, 10, 1000);
        idle.idle(0);
        idle.idle(0);
        idle.idle(1);
        idle.idle(0);
        assertEquals(List.of(10_000L, 20_000L, 10_000L), waits);
    }
}
