package org.gexj.smp;

import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.testkit.ConduitKit;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Over smp a large request polls on its way out, as GASNet-EX's requests poll on entry: what a peer sent runs before
 * the request returns, so two ranks flooding each other drain each other's frames between their own. A small request
 * does not pay for the poll, and an IMMEDIATE one does not poll (nor does GASNet's).
 */
class SmpRequestPollTest extends ConduitKit {
    private static final int SMALL = 1024;
    private static final int LARGE = 16 * 1024;

    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }

    @Test
    void aLargeRequestRunsWhatArrivedBeforeItAndASmallOrImmediateOneDoesNot() {
        exactJob(2, client -> {
            final Am am = Am.of(client);
            final AtomicLong shorts = new AtomicLong();
            final AtomicLong mediums = new AtomicLong();
            final int shortHandler = am.register(AmHandler.shortRequest(0, (t, a) -> shorts.incrementAndGet()));
            final int mediumHandler = am.register(AmHandler.mediumRequest(0, (t, p, a) -> mediums.incrementAndGet()));
            client.barrier();
            if (client.rank() == 1) {
                am.requestShort(0, shortHandler);
                signals().post("sent", 1);
                final long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (mediums.get() < 3 && System.nanoTime() < end) {
                    client.poll();
                }
                assertEquals(3, mediums.get(), "rank 0's Mediums handled");
            } else {
                signals().await("sent", Duration.ofSeconds(30));
                final MemorySegment payload = Arena.ofAuto().allocate(LARGE);
                assertEquals(0, shorts.get(), "rank 1's request ran before rank 0 polled");
                assertEquals(Am.OK, am.requestMedium(1, mediumHandler, payload, 0, SMALL, Lc.NOW));
                assertEquals(0, shorts.get(), "a " + SMALL + "-byte Medium request polled");
                assertEquals(Am.OK, am.tryRequestMedium(1, mediumHandler, payload, 0, LARGE, Lc.NOW));
                assertEquals(0, shorts.get(), "an IMMEDIATE " + LARGE + "-byte Medium request polled");
                assertEquals(Am.OK, am.requestMedium(1, mediumHandler, payload, 0, LARGE, Lc.NOW));
                assertEquals(1, shorts.get(), "a " + LARGE + "-byte Medium request did not run rank 1's request");
            }
            client.barrier();
        });
    }
}
