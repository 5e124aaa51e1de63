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

/**
 * GASNet-EX: a {@code _Test} call makes no progress. {@link Event#test()} and {@link Client#nbiTest} never poll, so
 * they never run a handler, whatever the conduit and RMA engine: only a poll or a wait does.
 */
public abstract class ProgressKit extends ConduitKit {
    private static final long SEGMENT = 64 * 1024;
    private static final int REQUESTS = 20;
    private static final long TEST_LOOP_NS = 300_000_000L;

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
