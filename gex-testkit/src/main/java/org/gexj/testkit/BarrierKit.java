package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link Client#barrier()} as a user sees it, on every conduit and with each barrier implementation
 * ({@code GEX_BARRIER}): no rank passes a phase before every rank has entered it, at sizes that are and are not powers
 * of two, while AM traffic flows around it.
 */
public abstract class BarrierKit extends ConduitKit {
    /**
     * Each rank posts that it entered phase p ({@link #signals()}, shared by threads and by processes alike) before
     * its barrier, and after the barrier finds every rank's post for p: one missing is a rank that passed early. A
     * rank that finds its own post but not its peers' has not shared the signals with them, which fails the same way.
     */
    @Test
    void noRankPassesAPhaseBeforeEveryRankEnteredIt() {
        for (int ranks : new int[] {1, 2, 3, 5}) {
            final int phases = phases();
            job(ranks, client -> {
                final KitSignals signals = signals();
                for (int p = 0; p < phases; p++) {
                    signals.post("entered-" + p + "-" + client.rank(), 1);
                    client.barrier();
                    for (int r = 0; r < client.size(); r++) {
                        if (!signals.posted("entered-" + p + "-" + r)) {
                            throw new AssertionError(client.size() + " ranks: rank " + client.rank()
                                + " passed phase " + p + " before rank " + r + " had entered it");
                        }
                    }
                }
            });
        }
    }

    /**
     * Barrier phases per job of the first test: 2000 by default, where a phase costs a memory round trip; fewer on a
     * network conduit, where each step of the dissemination barrier is a message (a few ms a phase for 5 ranks).
     */
    protected int phases() {
        return 2_000;
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
