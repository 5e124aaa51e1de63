package org.gexj.testkit.emu;

import org.gexj.Ec;
import org.gexj.GexException;
import org.gexj.Lc;
import org.gexj.rma.Rma;
import org.gexj.testkit.ConduitKit;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An NBI put that fails after it started is reported by {@code nbiWait}, once, also when the failure came back
 * before the wait (which then does not poll): emu reads a put's source when the put
 * lands, so a source closed before then fails the put (the test kits' other conduits copy at the call or never fail
 * a started put without a peer failing).
 */
class EmuNbiFailureTest extends ConduitKit {
    private static final long SEGMENT = 1 << 16;

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
            if (client.rank() == 0) {
                final Arena arena = Arena.ofShared();
                final MemorySegment source = arena.allocate(64);
                rma.putNbi(1, 0, source, 0, 64, Lc.DEFER); // read when it lands, after the close below
                arena.close();
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
            }
            client.barrier();
        });
    }
}
