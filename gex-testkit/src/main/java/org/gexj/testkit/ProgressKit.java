package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * GASNet-EX: a {@code _Test} call makes no progress. {@link Event#test()} and {@link Client#nbiTest} never poll, so
 * they never run a handler, whatever the conduit and RMA engine: only a poll or a wait does.
 *
 * <p>And a rank that waits with nothing to do still serves its peers' gets: one that has backed off to parking is
 * woken by a get that needs it (software RMA at the target), or is not needed at all.
 */
public abstract class ProgressKit extends ConduitKit {
    private static final long SEGMENT = 64 * 1024;
    private static final int REQUESTS = 20;
    private static final long TEST_LOOP_NS = 300_000_000L;
    private static final int GETS = 25;
    /** Each park of the waiting rank: far longer than a get takes, so a get that waits one out is plain. */
    private static final long PARK_US = 200_000;

    private void testsRunNoHandlers(int ranks, boolean rmaOverAm) {
        exactJob(ranks, rmaOverAm ? java.util.Map.of("GEX_RMA_OVER_AM", "1") : java.util.Map.of(), client -> {
            final Am am = Am.of(client);
            final Rma rma = Rma.of(client);
            client.attachSegment(SEGMENT);
            final AtomicLong handled = new AtomicLong();
            final int h = am.register(AmHandler.shortRequest(0, (t, a) -> handled.incrementAndGet()));
            client.barrier();
            final KitSignals signals = signals();
            final int peers = client.size() - 1;
            if (client.rank() != 0) {
                for (int i = 0; i < REQUESTS; i++) {
                    am.requestShort(0, h);
                }
                signals.post("sent-" + client.rank(), REQUESTS);
            } else {
                for (int r = 1; r <= peers; r++) {
                    signals.await("sent-" + r, Duration.ofSeconds(30));
                }
                final MemorySegment dst = Arena.ofAuto().allocate(1024);
                final Event get = rma.getNb(dst, 0, 1, 0, 1024);
                rma.getNbi(dst, 0, 1, 0, 1024);
                // starting a get may run handlers (a request over AM polls, as GASNet's AMRequest does);
                // testing may not
                final long started = handled.get();
                boolean getDone = false;
                long tests = 0;
                final long end = System.nanoTime() + TEST_LOOP_NS;
                while (System.nanoTime() < end) {
                    if (!getDone) {
                        getDone = get.test();
                    }
                    client.nbiTest(Ec.ALL);
                    tests++;
                }
                assertEquals(started, handled.get(), "handlers run during " + tests + " test() and nbiTest() calls");
                final long expected = (long) REQUESTS * peers;
                final long limit = System.nanoTime() + 30_000_000_000L;
                while (handled.get() < expected && System.nanoTime() < limit) {
                    client.poll();
                }
                assertEquals(expected, handled.get(), "handlers run by polling");
                if (!getDone) {
                    get.await();
                }
                client.nbiWait(Ec.ALL);
            }
            client.barrier();
        });
    }

    /**
     * Rank 1 waits in a barrier that parks at once for {@value #PARK_US} us at a time; rank 0 makes {@value #GETS}
     * blocking gets from it. Waiting out the parks would take {@code GETS * PARK_US}; served, they take a wake-up each.
     */
    @Test
    void getsFromARankParkedInABarrierAreServedWithoutWaitingOutItsParks() {
        final String park = Long.toString(PARK_US);
        exactJob(2, java.util.Map.of("GEX_WAIT_SPINS", "0", "GEX_WAIT_YIELDS", "0", "GEX_WAIT_PARK_US", park,
            "GEX_WAIT_PARK_MAX_US", park), client -> {
                final Rma rma = Rma.of(client);
                final MemorySegment segment = client.attachSegment(SEGMENT).memory();
                segment.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 1000L + client.rank());
                client.barrier();
                if (client.rank() == 0) {
                    signals().await("parked", Duration.ofSeconds(30));
                    Thread.sleep(PARK_US / 1000 * 2); // rank 1 is in its second park at least
                    final MemorySegment dst = Arena.ofAuto().allocate(8);
                    final long start = System.nanoTime();
                    for (int i = 0; i < GETS; i++) {
                        rma.get(dst, 0, 1, 0, 8);
                        assertEquals(1001L, dst.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0), "get " + i);
                    }
                    final long took = System.nanoTime() - start;
                    assertTrue(took < GETS * PARK_US * 1000 / 2, GETS + " gets from a parked rank took "
                        + took / 1_000_000 + " ms: they waited out its parks of " + PARK_US / 1000 + " ms");
                } else {
                    signals().post("parked", 1);
                }
                client.barrier();
            });
    }

    @Test
    void testAndNbiTestRunNoHandlers() {
        testsRunNoHandlers(2, false);
    }

    @Test
    void testAndNbiTestRunNoHandlersAt4Ranks() {
        testsRunNoHandlers(4, false);
    }

    @Test
    void testAndNbiTestRunNoHandlersWithRmaOverAm() {
        testsRunNoHandlers(2, true);
    }
}
