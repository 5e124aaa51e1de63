package org.gexj.testkit.emu;

import org.gexj.Ec;
import org.gexj.GexException;
import org.gexj.Lc;
import org.gexj.rma.Rma;
import org.gexj.testkit.ConduitKit;
import org.gexj.testkit.KitSignals;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An NBI put that fails after it started is reported by {@code nbiWait}, once, also when the failure came back
 * before the wait (which then does not poll): emu reads a put's source when the put
 * lands, so a source closed before then fails the put (the test kits' other conduits copy at the call or never fail
 * a started put without a peer failing). Rank 1 does not poll between the put and the close.
 */
class EmuNbiFailureTest extends ConduitKit {
    private static final long SEGMENT = 1 << 16;
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }

    @Test
    void aFailedNbiPutIsReportedByTheNextWaitOnly() {
        exactJob(2, client -> {
            final Rma rma = Rma.of(client);
            client.attachSegment(SEGMENT);
            client.barrier();
            final KitSignals signals = signals();
            if (client.rank() == 0) {
                // rank 1 lands the put when it polls: not until the source is closed (its barrier wait polled, and
                // sometimes landed the put, with the source still open)
                final long deadline = System.nanoTime() + WAIT.toNanos();
                while (!signals.posted("rank1-out")) {
                    assertTrue(System.nanoTime() - deadline < 0, "rank 1 did not leave the barrier");
                    client.poll();
                }
                final Arena arena = Arena.ofShared();
                final MemorySegment source = arena.allocate(64);
                rma.putNbi(1, 0, source, 0, 64, Lc.DEFER); // read when it lands, after the close below
                arena.close();
                signals.post("closed", 1);
                assertFalse(client.nbiTest(Ec.PUT), "nothing has polled: the put cannot have landed");
                while (!client.nbiTest(Ec.PUT)) {
                    client.poll(); // until the failure came back: complete, and not yet reported
                }
                final GexException failed = assertThrows(GexException.class, () -> client.nbiWait(Ec.PUT));
                assertTrue(failed.getMessage().contains("failed after it was started"), failed.getMessage());
                client.nbiWait(Ec.PUT); // reported once: nothing is in flight any more
                assertTrue(client.nbiTest(Ec.PUT));
                final MemorySegment live = Arena.ofShared().allocate(64);
                rma.putNbi(1, 0, live, 0, 64, Lc.DEFER);
                client.nbiWait(Ec.PUT); // a later put on the same event completes as usual
            } else {
                signals.post("rank1-out", 1);
                signals.await("closed", WAIT); // without polling
            }
            client.barrier();
        });
    }
}
