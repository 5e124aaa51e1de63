package org.gexj.testkit;

import org.gexj.Event;
import org.gexj.GexException;
import org.gexj.Lc;
import org.gexj.Registration;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.launch.InProcessJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rendezvous AM Long ({@code GEX_AMLONG_RENDEZVOUS_MIN}) where the conduit pulls registered memory: a Long request
 * from registered memory travels as its envelope, rank 1 pulls the payload (Cross Memory Attach on smp, an RDMA read by
 * the registration's key on ofi) and runs the handler on it, and rank 0's local completion comes with rank 1's answer,
 * so the source may be rewritten as soon as it is complete. A registration closed before the pull fails the send's
 * completion and runs no handler. Subclasses name the conduit ({@link #conduit()}) and the counter of its pulls.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
public abstract class RendezvousLongKit {
    private static final int HANDLER = 200;
    private static final int ACK = 201;
    protected static final int MIN = 65536;
    private static final long SEGMENT = 4 << 20;

    /** The conduit's settings, with its registrations reachable by pulls; without the rendezvous setting. */
    protected abstract Map<String, String> conduit();

    /** The counter of the pulls the conduit made for the rendezvous (at rank 1), or null where it keeps none. */
    protected abstract String pullCounter();

    private Map<String, String> rendezvous() {
        final Map<String, String> m = new HashMap<>(conduit());
        m.put("GEX_AMLONG_RENDEZVOUS_MIN", String.valueOf(MIN));
        return m;
    }

    @Test
    void largeLongsFromRegisteredMemoryArePulledAndSmallOnesCopied() {
        final int[] sizes = {1, MIN - 1, MIN, 3 * MIN + 5, 2 << 20};
        final Map<String, Long> counters = run(rendezvous(), sizes, Lc.NOW);
        assertEquals(3L, counters.get("0:am.rendezvous.sent"), counters.toString());
        assertEquals(3L, counters.get("1:am.rendezvous.pulled"), counters.toString());
        assertEquals(0L, counters.get("1:am.rendezvous.refused"), counters.toString());
        if (pullCounter() != null) {
            assertEquals(3L, counters.get("1:" + pullCounter()), counters.toString());
        }
    }

    @Test
    void eventAndGroupCompletionsComeWithTheAnswer() {
        final int[] sizes = {MIN, 1 << 20};
        assertEquals(2L, run(rendezvous(), sizes, null).get("1:am.rendezvous.pulled"));
        assertEquals(2L, run(rendezvous(), sizes, Lc.GROUP).get("1:am.rendezvous.pulled"));
    }

    @Test
    void offByDefault() {
        final Map<String, Long> counters = run(conduit(), new int[] {MIN, 1 << 20}, Lc.NOW);
        assertEquals(0L, counters.getOrDefault("0:am.rendezvous.sent", 0L), counters.toString());
        if (pullCounter() != null) {
            assertEquals(0L, counters.getOrDefault("1:" + pullCounter(), 0L), counters.toString());
        }
    }

    /**
     * Rank 0 sends {@code sizes} from its registration with {@code lc} (null: an event), each with three args; after
     * local completion it rewrites the source, and rank 1's handler, which checks the bytes and args it was given,
     * must still have seen the original. The handler replies, so a handler's own reply works beside the answer.
     *
     * @return each rank's counters, prefixed "0:" and "1:"
     */
    protected static Map<String, Long> run(Map<String, String> environment, int[] sizes, Lc lc) {
        final Map<String, Long> counters = new ConcurrentHashMap<>();
        final AtomicInteger handled = new AtomicInteger();
        final AtomicInteger acked = new AtomicInteger();
        final AtomicReference<String> wrong = new AtomicReference<>();
        InProcessJob.run(2, Duration.ofSeconds(80), environment, client -> {
            final Am am = Am.of(client);
            final MemorySegment segment = client.attachSegment(SEGMENT).memory();
            am.register(HANDLER, AmHandler.longRequest(3, (token, payload, args) -> {
                final int size = args.get(0);
                for (int i = 0; i < size; i++) {
                    if (payload.getByte(i) != pattern(i, args.get(1))) {
                        wrong.compareAndSet(null, "size " + size + " byte " + i);
                        break;
                    }
                }
                if (payload.length() != size || args.get(2) != -size) {
                    wrong.compareAndSet(null, "size " + size + ": length " + payload.length() + ", arg " + args.get(2));
                }
                handled.incrementAndGet();
                token.replyShort(ACK);
            }));
            am.register(ACK, AmHandler.shortReply(0, (token, args) -> acked.incrementAndGet()));
            client.barrier();
            if (client.rank() == 0) {
                final MemorySegment memory = Arena.ofShared().allocate(SEGMENT / 2 + 64);
                try (Registration registration = client.register(memory)) {
                    int round = 0;
                    for (int size : sizes) {
                        final long at = 24;
                        for (int i = 0; i < size; i++) {
                            memory.set(ValueLayout.JAVA_BYTE, at + i, pattern(i, round));
                        }
                        final Lc done = lc == null ? Lc.event() : lc;
                        am.requestLong(1, HANDLER, memory, at, size, 4096, done, size, round, -size);
                        if (lc == null) {
                            done.lastEvent().await();
                        } else if (lc == Lc.GROUP) {
                            am.nbiWait(org.gexj.Ec.AM);
                        }
                        memory.fill((byte) 0x55); // locally complete: the source is ours again
                        while (acked.get() <= round) {
                            client.poll();
                        }
                        round++;
                    }
                }
            }
            client.barrier();
            client.stats().forEach((name, value) -> counters.put(client.rank() + ":" + name, value));
        });
        assertEquals(null, wrong.get());
        assertEquals(sizes.length, handled.get());
        return counters;
    }

    @Test
    void aRegistrationClosedBeforeThePullFailsTheSendAndRunsNoHandler() {
        final AtomicInteger handled = new AtomicInteger();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final CountDownLatch closed = new CountDownLatch(1);
        final CountDownLatch quiet = new CountDownLatch(1);
        final Map<String, Long> counters = new HashMap<>();
        final Throwable jobError = caught(() -> InProcessJob.run(2, Duration.ofSeconds(80), rendezvous(), client -> {
            final Am am = Am.of(client);
            client.attachSegment(SEGMENT);
            am.register(HANDLER, AmHandler.longRequest(3, (token, payload, args) -> handled.incrementAndGet()));
            client.barrier();
            if (client.rank() == 0) {
                final MemorySegment memory = Arena.ofShared().allocate(MIN * 2);
                final Registration registration = client.register(memory);
                quiet.await(); // rank 1 left the barrier and polls no more: the envelope waits until the close
                final Lc lc = Lc.event();
                am.requestLong(1, HANDLER, memory, 0, MIN, 0, lc, 0, 0, 0);
                final Event event = lc.lastEvent();
                assertFalse(event.test(), "complete before rank 1 pulled");
                registration.close(); // too early: the payload is still to be pulled
                closed.countDown();
                failure.set(assertThrows(GexException.class, event::await));
            } else {
                quiet.countDown();
                closed.await(); // no poll before rank 0 closed its registration
            }
            client.barrier();
            if (client.rank() == 1) {
                counters.putAll(client.stats());
            }
        }));
        assertEquals(0, handled.get(), "a handler ran on a payload that was never pulled");
        if (!refusesAlone()) {
            // the refused read ends the connection: the job fails, naming a rank, within its timeout
            final Throwable reported = jobError != null ? jobError : failure.get();
            assertTrue(reported != null && String.valueOf(reported.getMessage()).contains("rank"),
                String.valueOf(reported));
            return;
        }
        if (jobError != null) {
            throw new AssertionError(jobError);
        }
        final String message = String.valueOf(failure.get().getMessage());
        assertTrue(message.contains("rank 1 could not pull the AM Long payload [0, " + MIN + ") of rank 0's"
            + " registration") && message.contains(closedPullReason()), message);
        assertEquals(1L, counters.get("am.rendezvous.refused"), counters.toString());
    }

    /**
     * Whether a pull from a closed registration fails that pull alone (the owner's refusal, or a NIC that refuses one
     * operation); false where the refused access ends the connection, and so the job ({@code GEX_IBV_PEER_KEYS=on}).
     */
    protected boolean refusesAlone() {
        return true;
    }

    private static Throwable caught(Runnable job) {
        try {
            job.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /** What the failure says of a pull from a closed registration: the owner's answer, or the NIC's refusal. */
    protected String closedPullReason() {
        return "no open registration";
    }

    @Test
    void aBadSettingIsNamed() {
        final Map<String, String> bad = new HashMap<>(conduit());
        bad.put("GEX_AMLONG_RENDEZVOUS_MIN", "0");
        final Throwable e = assertThrows(Throwable.class, () -> InProcessJob.run(1, Duration.ofSeconds(30), bad,
            client -> Am.of(client)));
        Throwable cause = e;
        while (cause.getCause() != null && !(cause instanceof IllegalArgumentException)) {
            cause = cause.getCause();
        }
        assertTrue(String.valueOf(cause.getMessage()).contains("GEX_AMLONG_RENDEZVOUS_MIN=0 outside [1, "),
            String.valueOf(cause));
    }

    private static byte pattern(int i, int round) {
        return (byte) (i * 31 + round * 7 + 1);
    }
}
