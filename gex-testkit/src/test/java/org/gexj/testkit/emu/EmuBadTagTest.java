package org.gexj.testkit.emu;

import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.launch.InProcessJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Remote writes whose immediate tag is not an AM Long payload of this job, or not the current message of its slot,
 * are counted in {@code droppedFrames()} and dropped: no handler runs, nothing waits in the reassembly table. A tag of
 * the other kind goes to the RMA layer's puts with completion, which drop one that is not theirs
 * ({@code pwc.rdma.dropped}). The tags are put straight through rank 0's emu conduit, beside the library.
 */
class EmuBadTagTest {
    /** The 64-bit tag: | kind:1 | direction:1 | nonce (slot:6, generation:4) | source rank:52 |. */
    private static long tag(int kind, int direction, int slot, int generation, int source) {
        return (long) kind << 63 | (long) direction << 62 | (long) ((slot << 4) | generation) << 52 | source;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void unknownMalformedAndStaleTagsAreCountedAndDropped() {
        final long[] bad = {
            tag(1, 0, 0, 1, 5),   // a source rank outside the job
            tag(1, 0, 0, 1, 1),   // a source rank other than the writer's
            tag(1, 1, 3, 1, 0),   // a reply for a slot rank 1 does not hold
            tag(1, 0, 2, 5, 0),   // a request generation that is not the slot's next
        };
        final AtomicInteger handled = new AtomicInteger();
        final List<String> seen = new CopyOnWriteArrayList<>();
        InProcessJob.run(2, Duration.ofSeconds(40), Map.of("GEX_CONDUIT", "emu"), client -> {
            final Am am = Am.of(client);
            client.attachSegment(1 << 20);
            am.register(AmHandler.longRequest(0, (t, p, a) -> handled.incrementAndGet()));
            am.register(AmHandler.longReply(0, (t, p, a) -> handled.incrementAndGet()));
            client.barrier();
            if (client.rank() == 0) {
                final EmuConduit mine = EmuJob.conduit(client.jobId(), 0);
                final MemorySegment src = Arena.ofShared().allocate(8);
                for (long t : bad) {
                    // an operation id no layer owns (owner 0): its completion is reported and dropped by rank 0
                    assertEquals(EmuConduit.OK, mine.rma().putWithImmediate(1, 0, src, 0, 8, t, 0L));
                }
                // the other kind, but not a put with completion's (bit 62 clear); and a completion of PWC slot 0,
                // which has nothing in flight
                assertEquals(EmuConduit.OK, mine.rma().putWithImmediate(1, 0, src, 0, 8, tag(0, 0, 0, 1, 0),
                    3L << 56));
            }
            final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            while (System.nanoTime() < until) {
                client.poll();
            }
            client.barrier();
            if (client.rank() == 1) {
                seen.add("dropped " + am.droppedFrames() + ", pending " + am.pendingLongReassemblies()
                    + ", pwc " + client.stats().get("pwc.rdma.dropped"));
            } else {
                seen.add("rank 0 pwc " + client.stats().get("pwc.rdma.dropped"));
            }
        });
        assertEquals(java.util.Set.of("dropped " + bad.length + ", pending 0, pwc 1", "rank 0 pwc 1"),
            java.util.Set.copyOf(seen));
        assertEquals(0, handled.get(), "no handler runs for a bad tag");
    }
}
