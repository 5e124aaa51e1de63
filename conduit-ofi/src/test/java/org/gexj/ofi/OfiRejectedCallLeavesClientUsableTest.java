package org.gexj.ofi;

import org.gexj.Ec;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.rma.Rma;
import org.gexj.testkit.ConduitKit;
import org.gexj.testkit.Patterns;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A put, get or AM Long that the conduit rejects with an exception (here {@link RejectingOfiConduitProvider}, the ofi
 * conduit refusing one length) leaves the client usable: the RMA and AM Long layers give back the operation slot,
 * the thread's blocking event, the NBI events, the AM send claim and the Long credit they took for it. Slots, send
 * buffers and the back-pressure timeout are small, so that anything held shows within seconds.
 */
class OfiRejectedCallLeavesClientUsableTest extends ConduitKit {
    private static final int REJECTED = (int) RejectingOfiConduitProvider.REJECTED;
    private static final long SEGMENT = 1 << 20;
    /** More rejected calls of each form than there are slots or send buffers. */
    private static final int REPEATS = 6;

    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi-rejecting", "GEX_OFI_PROVIDER", "tcp;ofi_rxm", "GEX_RMA_OPS", "4",
            "GEX_AMLONG_OPS", "4", "GEX_OFI_SEND_BUFFERS", "4", "GEX_BACKPRESSURE_TIMEOUT", "3");
    }

    @Override
    protected Duration timeout() {
        return Duration.ofSeconds(40);
    }

    @Test
    void rejectedPutsGetsAndLongsLeaveTheClientAbleToMoveDataBarrierAndClose() {
        exactJob(2, client -> {
            final Rma rma = Rma.of(client);
            final Am am = Am.of(client);
            final MemorySegment mine = client.attachSegment(SEGMENT).memory();
            final AtomicInteger longs = new AtomicInteger();
            final int handler = am.register(AmHandler.longRequest(1, (t, p, a) -> longs.incrementAndGet()));
            client.barrier();
            final int peer = (client.rank() + 1) % 2;
            final MemorySegment buffer = Arena.ofAuto().allocate(SEGMENT);
            final long start = System.nanoTime();
            for (int i = 0; i < REPEATS; i++) {
                assertThrows(IllegalArgumentException.class, () -> rma.put(peer, 0, buffer, 0, REJECTED));
                assertThrows(IllegalArgumentException.class, () -> rma.putNb(peer, 0, buffer, 0, REJECTED, Lc.NOW));
                assertThrows(IllegalArgumentException.class, () -> rma.putNbi(peer, 0, buffer, 0, REJECTED, Lc.NOW));
                assertThrows(IllegalArgumentException.class, () -> rma.get(buffer, 0, peer, 0, REJECTED));
                assertThrows(IllegalArgumentException.class, () -> rma.getNb(buffer, 0, peer, 0, REJECTED));
                assertThrows(IllegalArgumentException.class, () -> rma.getNbi(buffer, 0, peer, 0, REJECTED));
                assertThrows(IllegalArgumentException.class,
                    () -> am.requestLong(peer, handler, buffer, 0, REJECTED, 0, Lc.NOW, 0));
            }
            // the thread's blocking event, the NBI events, the slots, claims and credits are all back
            final long base = (long) client.rank() * (SEGMENT / 2);
            Patterns.fill(buffer, 0, 100_000, 40 + client.rank());
            rma.put(peer, base, buffer, 0, 100_000);
            rma.putNb(peer, base, buffer, 0, 100_000, Lc.NOW).await();
            rma.putNbi(peer, base, buffer, 0, 100_000, Lc.NOW);
            client.nbiWait(Ec.PUT);
            buffer.fill((byte) 0);
            rma.get(buffer, 0, peer, base, 100_000);
            rma.getNb(buffer, 0, peer, base, 100_000).await();
            rma.getNbi(buffer, 0, peer, base, 100_000);
            client.nbiWait(Ec.GET);
            assertEquals(-1, Patterns.firstMismatch(buffer, 0, 100_000, 40 + client.rank()), "data read back");
            for (int i = 0; i < REPEATS; i++) {
                assertEquals(Am.OK, am.requestLong(peer, handler, buffer, 0, 50_000, SEGMENT / 2 - 50_000, Lc.NOW, i));
            }
            while (longs.get() < REPEATS) {
                client.poll();
            }
            client.barrier();
            final long seconds = (System.nanoTime() - start) / 1_000_000_000L;
            assertTrue(seconds < 3, "rank " + client.rank() + " took " + seconds + " s after the rejected calls");
            assertEquals(-1, Patterns.firstMismatch(mine, (long) peer * (SEGMENT / 2), 100_000, 40 + peer));
        });
    }
}
