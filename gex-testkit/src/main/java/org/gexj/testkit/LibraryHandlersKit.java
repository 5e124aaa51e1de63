package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.Lc;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The library's own handlers (RMA over AM, the AM layer's credit return) exist on every rank from {@code Gex.init} on,
 * as GASNet-EX registers its handlers in {@code gex_Client_Init}: a rank may put and get at once, to a peer that has
 * not touched {@link Rma} or {@code Am} itself.
 */
public abstract class LibraryHandlersKit extends ConduitKit {
    private static final long SEGMENT = 64 * 1024;

    /** Completes {@code e} by polling, failing after {@code limit} instead of waiting for the job's timeout. */
    private static void awaitWithin(Client client, Event e, Duration limit, String what) {
        final long end = System.nanoTime() + limit.toNanos();
        while (!e.test()) {
            if (System.nanoTime() > end) {
                throw new AssertionError(what + " did not complete in " + limit.toSeconds() + " s");
            }
            client.poll();
            Thread.onSpinWait();
        }
    }

    @Test
    void putAndGetReachAPeerThatNeverUsedRma() {
        exactJob(2, Map.of("GEX_RMA_OVER_AM", "1"), client -> {
            client.attachSegment(SEGMENT);
            if (client.rank() == 0) {
                final Rma rma = Rma.of(client);
                final MemorySegment buffer = Arena.ofAuto().allocate(256);
                buffer.fill((byte) 0x5a);
                awaitWithin(client, rma.putNb(1, 128, buffer, 0, 256, Lc.NOW), Duration.ofSeconds(15),
                    "a put to a rank that never called Rma.of");
                buffer.fill((byte) 0);
                awaitWithin(client, rma.getNb(buffer, 0, 1, 128, 256), Duration.ofSeconds(15),
                    "a get from a rank that never called Rma.of");
                for (int i = 0; i < 256; i++) {
                    assertEquals((byte) 0x5a, buffer.get(ValueLayout.JAVA_BYTE, i), "byte " + i + " read back");
                }
            }
            client.barrier();
            if (client.rank() == 1) {
                assertEquals((byte) 0x5a, client.segment().memory().get(ValueLayout.JAVA_BYTE, 128), "put landed");
            }
        });
    }
}
