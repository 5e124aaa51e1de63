package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link Client#barrier()} as a user sees it, on every conduit and with each barrier implementation
 * ({@code GEX_BARRIER}): no rank passes a phase before every rank has entered it, at sizes that are and are not powers
 * of two, while AM traffic flows around it.
 */
public abstract class BarrierKit extends ConduitKit {
    private static final Map<String, AtomicIntegerArray> ARRIVALS = new ConcurrentHashMap<>();

    @Test
    void noRankPassesAPhaseBeforeEveryRankEnteredIt() {
        for (int ranks : new int[] {1, 2, 3, 5}) {
            final int phases = 2_000;
            final AtomicInteger early = new AtomicInteger();
            job(ranks, client -> {
                final AtomicIntegerArray arrivals = ARRIVALS.computeIfAbsent(client.jobId(),
                    k -> new AtomicIntegerArray(phases));
                for (int p = 0; p < phases; p++) {
                    arrivals.incrementAndGet(p);
                    client.barrier();
                    if (arrivals.get(p) != client.size()) {
                        early.incrementAndGet();
                    }
                }
            });
            assertEquals(0, early.get(), ranks + " ranks: phases passed before every rank had entered");
        }
    }

    /** Barrier messages and AM traffic share the conduit's paths; neither loses the other's messages. */
    @Test
    void barriersInterleaveWithActiveMessages() {
        job(4, client -> {
            final Am am = Am.of(client);
            final AtomicInteger got = new AtomicInteger();
            final int h = am.register(AmHandler.shortRequest(1, (t, a) -> got.addAndGet(a.get(0))));
            client.barrier();
            for (int p = 0; p < 500; p++) {
                for (int r = 0; r < client.size(); r++) {
                    am.requestShort(r, h, 1);
                }
                client.barrier();
            }
            while (got.get() < 500 * client.size()) {
                client.poll();
            }
            client.barrier();
            assertEquals(500 * client.size(), got.get());
        });
    }
}
