package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.GexException;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Direction;
import org.gexj.am.SrcDesc;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Misuse and bad input end in a clear exception at the call, with nothing written out of bounds, nothing sent and no
 * state left behind; unmatched collectives and failures inside handlers end in errors, never hangs. Written once and
 * run against every conduit.
 */
public abstract class RobustnessKit extends ConduitKit {
    private static final long SEGMENT = 1L << 20;

    private static void pollUntil(Client client, BooleanSupplier done) {
        while (!done.getAsBoolean()) {
            client.poll();
            Thread.onSpinWait();
        }
    }

    private static void pollUntilPosted(Client client, KitSignals signals, String name, Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!signals.posted(name)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("kit signal " + name + " not posted within " + timeout);
            }
            client.poll();
        }
    }

    private static void assertMentions(Throwable e, String... words) {
        for (String w : words) {
            assertTrue(String.valueOf(e.getMessage()).contains(w), "message '" + e.getMessage() + "' should name " + w);
        }
    }

    /** Every view a handler gets checks the caller's ranges too, and writes nothing when one is bad. */
    @Test
    void payloadAndArgsViewsRejectBadDestinationRangesWithoutWriting() {
        job(2, client -> {
            final Am am = Am.of(client);
            final List<String> errors = new CopyOnWriteArrayList<>();
            final AtomicInteger handled = new AtomicInteger();
            final MemorySegment readOnly = Arena.ofAuto().allocate(64).asReadOnly();
            final int h = am.register(AmHandler.mediumRequest(2, (t, p, a) -> {
                final byte[] dst = new byte[16];
                Arrays.fill(dst, (byte) 7);
                check(errors, "count beyond dst", () -> p.getBytes(0, dst, 0, 32), "32");
                check(errors, "dstOffset beyond dst", () -> p.getBytes(0, dst, 12, 8), "[12, 20)");
                check(errors, "negative count", () -> p.getBytes(0, dst, 0, -1), "-1");
                check(errors, "negative dstOffset", () -> p.getBytes(0, dst, -1, 4), "-1");
                for (byte b : dst) {
                    if (b != 7) {
                        errors.add("a rejected getBytes wrote into dst: " + Arrays.toString(dst));
                        break;
                    }
                }
                p.getBytes(0, dst, 8, 8);
                if (dst[8] != Patterns.at(5, 0) || dst[7] != 7) {
                    errors.add("a good getBytes copied wrongly: " + Arrays.toString(dst));
                }
                check(errors, "segment too small", () -> p.copyTo(0, Arena.ofAuto().allocate(8), 4, 8), "[4, 12)");
                try {
                    p.copyTo(0, readOnly, 0, 8);
                    errors.add("copyTo a read-only segment was accepted");
                } catch (IllegalArgumentException expected) {
                    // rejected before writing
                }
                check(errors, "args into a short array", () -> a.copyTo(new int[1]), "2");
                handled.incrementAndGet();
            }));
            client.barrier();
            final MemorySegment src = Arena.ofAuto().allocate(100);
            Patterns.fill(src, 0, 100, 5);
            am.requestMedium((client.rank() + 1) % client.size(), h, src, 0, 100, Lc.NOW, 1, 2);
            pollUntil(client, () -> handled.get() == 1);
            client.barrier();
            assertEquals(List.of(), errors);
        });
    }

    private static void check(List<String> errors, String what, Runnable bad, String mentioned) {
        try {
            bad.run();
            errors.add(what + ": accepted");
        } catch (IndexOutOfBoundsException e) {
            if (e.getMessage() == null || !e.getMessage().contains(mentioned)) {
                errors.add(what + ": message '" + e.getMessage() + "' does not name " + mentioned);
            }
        } catch (RuntimeException e) {
            errors.add(what + ": " + e + " instead of IndexOutOfBoundsException");
        }
    }

    /** The NPAM buffer is bounded to the grant: nothing reaches the conduit memory around it, which peers read. */
    @Test
    void negotiatedPayloadBufferIsBoundedToTheGrant() {
        job(2, client -> {
            final Am am = Am.of(client);
            client.attachSegment(SEGMENT);
            final List<String> got = new CopyOnWriteArrayList<>();
            final int h = am.register(AmHandler.mediumRequest(1, (t, p, a) -> got.add(a.get(0) + ":" + p.length()
                + ":" + p.getByte(0) + ":" + p.getByte(p.length() - 1))));
            client.barrier();
            final int peer = (client.rank() + 1) % client.size();
            for (int round = 0; round < 3; round++) {
                final SrcDesc sd = am.prepareRequestMedium(peer, null, 16, 16, null, 0, 1);
                assertEquals(16, sd.size());
                assertEquals(16, sd.buffer().capacity());
                assertMentions(assertThrows(IndexOutOfBoundsException.class, () -> sd.buffer().putByte(16, (byte) 1)),
                    "[16, 17)", "[0, 16)");
                assertThrows(IndexOutOfBoundsException.class, () -> sd.buffer().getByte(-1));
                assertThrows(IndexOutOfBoundsException.class, () -> sd.buffer().putLong(9, 1L));
                assertThrows(IndexOutOfBoundsException.class, () -> sd.buffer().setMemory(0, 17, (byte) 1));
                assertThrows(IndexOutOfBoundsException.class,
                    () -> sd.buffer().putBytes(8, new byte[16], 0, 9));
                sd.buffer().setMemory(0, 16, (byte) (round + 1));
                sd.commit(h, 16, round);
                assertThrows(IllegalStateException.class, () -> sd.buffer().putByte(0, (byte) 1),
                    "the buffer is invalid after commit");
            }
            pollUntil(client, () -> got.size() == 3);
            client.barrier();
            assertEquals(List.of("0:16:1:1", "1:16:2:2", "2:16:3:3"), got.stream().sorted().toList());
        });
    }

    /**
     * A Long destination outside the peer's segment is rejected at prepare when at least a byte must fit, with no NPAM
     * state left; with least 0 it grants 0 bytes, since a 0-byte commit passes its dest unchecked (AmConformanceKit).
     * The rejected calls and the cancelled prepares send nothing: a marker sent after them is all the peer gets.
     */
    @Test
    void longDestinationOutsideTheSegmentIsRejectedAtPrepare() {
        job(2, client -> {
            final Am am = Am.of(client);
            client.attachSegment(SEGMENT);
            final AtomicInteger delivered = new AtomicInteger();
            final int h = am.register(AmHandler.longRequest(0, (t, p, a) -> delivered.incrementAndGet()));
            final Marker marker = new Marker(am);
            client.barrier();
            final int peer = (client.rank() + 1) % client.size();
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> am.prepareRequestLong(peer, null, 1, 64, SEGMENT + 4096, null, 0, 0));
            assertMentions(e, Long.toString(SEGMENT + 4096), Long.toString(SEGMENT));
            assertThrows(IllegalArgumentException.class,
                () -> am.requestLong(peer, h, Arena.ofAuto().allocate(8), 0, 1, SEGMENT, Lc.NOW));
            client.poll(); // not left between prepare and commit
            final SrcDesc beyond = am.prepareRequestLong(peer, null, 0, 64, SEGMENT + 4096, null, 0, 0);
            assertEquals(0, beyond.size(), "beyond the segment's end no byte fits");
            beyond.cancel();
            final SrcDesc atEnd = am.prepareRequestLong(peer, null, 0, 64, SEGMENT, null, 0, 0);
            assertEquals(0, atEnd.size(), "at the segment's end only 0 bytes fit");
            atEnd.cancel();
            marker.send(peer);
            marker.await(client, 1);
            assertEquals(0, delivered.get(), "rejected calls and cancelled prepares sent a Long");
            client.barrier();
        });
    }

    /** RMA over AM stores a get's data on whichever thread polls: unusable destinations are refused at the call. */
    @Test
    void getRejectsReadOnlyAndConfinedDestinationsAndThreadStaysUsable() {
        for (String overAm : new String[] {"0", "1"}) {
            job(2, Map.of("GEX_RMA_OVER_AM", overAm), client -> {
                final Rma rma = Rma.of(client);
                final MemorySegment seg = client.attachSegment(SEGMENT).memory();
                seg.set(ValueLayout.JAVA_LONG, 0, 1000 + client.rank());
                client.barrier();
                final int peer = (client.rank() + 1) % client.size();
                final MemorySegment readOnly = Arena.ofAuto().allocate(64).asReadOnly();
                assertMentions(assertThrows(IllegalArgumentException.class, () -> rma.get(readOnly, 0, peer, 0, 8)),
                    "read-only");
                assertThrows(IllegalArgumentException.class, () -> rma.getNb(readOnly, 0, peer, 0, 8));
                assertThrows(IllegalArgumentException.class, () -> rma.getNbi(readOnly, 0, peer, 0, 8));
                try (Arena confined = Arena.ofConfined()) {
                    final MemorySegment mine = confined.allocate(64);
                    assertMentions(assertThrows(IllegalArgumentException.class, () -> rma.get(mine, 0, peer, 0, 8)),
                        "confined");
                }
                final MemorySegment ok = Arena.ofShared().allocate(64);
                rma.get(ok, 0, peer, 0, 8); // the thread's blocking event was not left pending
                assertEquals(1000 + peer, ok.get(ValueLayout.JAVA_LONG, 0));
                client.barrier();
            });
        }
    }

    /** A get whose destination becomes unusable in flight completes with the failure instead of hanging. */
    @Test
    void aGetThatCannotStoreItsDataCompletesWithAnError() {
        job(2, Map.of("GEX_RMA_OVER_AM", "1"), client -> {
            final Rma rma = Rma.of(client);
            final MemorySegment seg = client.attachSegment(SEGMENT).memory();
            seg.set(ValueLayout.JAVA_LONG, 0, 77);
            client.barrier();
            final int peer = (client.rank() + 1) % client.size();
            final Arena arena = Arena.ofShared();
            final Event e = rma.getNb(arena.allocate(64), 0, peer, 0, 8);
            arena.close(); // before this rank polls: the reply cannot be stored
            final GexException failed = assertThrows(GexException.class, e::await);
            assertInstanceOf(IllegalStateException.class, failed.getCause(), String.valueOf(failed));
            final MemorySegment ok = Arena.ofAuto().allocate(8);
            rma.get(ok, 0, peer, 0, 8);
            assertEquals(77, ok.get(ValueLayout.JAVA_LONG, 0));
            client.barrier();
        });
    }

    /** GASNet-EX: an NB event is consumed by its successful test or wait; using it again is an error, not a hang. */
    @Test
    void aNonBlockingEventIsConsumedByItsSuccessfulWait() {
        job(2, Map.of("GEX_RMA_OVER_AM", "1"), client -> {
            final Rma rma = Rma.of(client);
            client.attachSegment(SEGMENT);
            client.barrier();
            final int peer = (client.rank() + 1) % client.size();
            final MemorySegment buf = Arena.ofAuto().allocate(64);
            final Event e = rma.putNb(peer, 0, buf, 0, 64, Lc.NOW);
            e.await();
            assertThrows(IllegalStateException.class, e::test);
            assertThrows(IllegalStateException.class, e::await);
            final Event again = rma.getNb(buf, 0, peer, 0, 64);
            pollUntil(client, again::test);
            client.barrier();
        });
    }

    @Test
    void handlerDirectionIsValidatedAtConstruction() {
        assertMentions(assertThrows(NullPointerException.class,
            () -> AmHandler.ofShort(null, 0, (t, a) -> { })), "direction");
        assertThrows(NullPointerException.class, () -> AmHandler.ofMedium(null, 0, (t, p, a) -> { }));
        assertThrows(NullPointerException.class, () -> AmHandler.ofLong(null, 0, (t, p, a) -> { }));
        assertNotNull(AmHandler.ofShort(Direction.REQREP, 0, (t, a) -> { }));
    }

    /** 0-byte transfers are no-ops with or without a buffer, in RMA as in AM; a null buffer with data is refused. */
    @Test
    void zeroByteTransfersAcceptANullBuffer() {
        for (String overAm : new String[] {"0", "1"}) {
            job(2, Map.of("GEX_RMA_OVER_AM", overAm), client -> {
                final Rma rma = Rma.of(client);
                client.attachSegment(SEGMENT);
                client.barrier();
                final int peer = (client.rank() + 1) % client.size();
                rma.put(peer, 0, null, 0, 0);
                rma.get(null, 0, peer, 0, 0);
                assertTrue(rma.putNb(peer, SEGMENT, null, 0, 0, Lc.NOW).test());
                assertTrue(rma.getNb(null, 0, peer, 8, 0).test());
                rma.putNbi(peer, 0, null, 0, 0, Lc.NOW);
                rma.getNbi(null, 0, peer, 0, 0);
                client.nbiWait(Ec.PUT | Ec.GET);
                assertMentions(assertThrows(NullPointerException.class, () -> rma.put(peer, 0, null, 0, 8)), "src");
                assertMentions(assertThrows(NullPointerException.class, () -> rma.get(null, 0, peer, 0, 8)), "dst");
                assertThrows(IllegalArgumentException.class, () -> rma.put(peer, SEGMENT + 1, null, 0, 0));
                client.barrier();
            });
        }
    }

    /**
     * One rank calls barrier() once more than the other: that extra barrier pairs with the other's close, and its own
     * close can never complete. It must end with an error naming the cause, not wait forever.
     */
    @Test
    void anUnmatchedBarrierEndsInAnErrorNamingTheClosedPeer() {
        final AssertionError e = assertThrows(AssertionError.class, () -> exactJob(2, client -> {
            client.barrier();
            if (client.rank() == 0) {
                client.barrier(); // pairs with rank 1's close()
                final GexException closing = assertThrows(GexException.class, client::close);
                assertMentions(closing, "rank 1 has closed", "barrier");
                // the job fails with it, and only with it: the driver (in a process of its own) checks which failure
                throw new ExpectedFailure(closing);
            }
        }));
        assertTrue(failedWith(e, ExpectedFailure.class), "rank 0's close did not fail as expected: " + e);
    }

    /** What a rank throws after checking that a call failed as its test expects, so that the job fails with it. */
    private static final class ExpectedFailure extends RuntimeException {
        ExpectedFailure(Throwable expected) {
            super("as expected: " + expected, expected);
        }
    }

    /**
     * A handler that throws while its rank waits in barrier(): the barrier completes its phase before the exception
     * comes out, so the next barrier pairs with the peers' next one and the ranks stay in step. The ranks order their
     * steps by {@link #signals()}: rank 1 sends only after rank 0 left the first barrier (whose polls would run the
     * handler there), and enters the barrier only once the handler has run in rank 0's barrier. Once the request may
     * be on its way rank 0 waits without polling, which would run the handler outside its barrier; otherwise the
     * ranks poll while they wait, since where the conduit's progress is manual (ofi) a rank's barrier message and
     * its request move only while it polls.
     */
    @Test
    void aHandlerExceptionInsideBarrierComesOutAfterThePhaseCompletes() {
        exactJob(2, client -> {
            final Am am = Am.of(client);
            final KitSignals signals = signals();
            final Duration wait = Duration.ofSeconds(30);
            final AtomicInteger pongs = new AtomicInteger();
            final int pong = am.register(AmHandler.shortReply(0, (t, a) -> pongs.incrementAndGet()));
            final int ping = am.register(AmHandler.shortRequest(0, (t, a) -> t.replyShort(pong)));
            final int boom = am.register(AmHandler.shortRequest(0, (t, a) -> {
                signals.post("boom-ran", 1);
                throw new IllegalStateException("boom");
            }));
            client.barrier();
            if (client.rank() == 1) {
                signals.post("rank1-out", 1);
                pollUntilPosted(client, signals, "rank0-out", wait);
                am.requestShort(0, boom);
                signals.post("boom-sent", 1);
                pollUntilPosted(client, signals, "boom-ran", wait);
                signals.post("rank1-entering", 1);
                client.barrier();
            } else {
                // polls until rank 1 is out of the first barrier too: this rank's barrier message may need the polls
                pollUntilPosted(client, signals, "rank1-out", wait);
                signals.post("rank0-out", 1);
                signals.await("boom-sent", wait);
                final IllegalStateException thrown = assertThrows(IllegalStateException.class, client::barrier);
                assertEquals("boom", thrown.getMessage());
                assertTrue(signals.posted("boom-ran"), "the exception came from elsewhere than the handler");
                assertTrue(signals.posted("rank1-entering"), "the barrier threw before rank 1 had arrived");
            }
            // in step: another barrier and a round trip both ways
            client.barrier();
            am.requestShort((client.rank() + 1) % 2, ping);
            pollUntil(client, () -> pongs.get() == 1);
            client.barrier();
        });
    }

    /**
     * The explicit-argument forms take IMMEDIATE by name (tryRequest*, tryReply*): on a full path they return
     * BACK_PRESSURED and send nothing; exactly the accepted messages arrive.
     */
    @Test
    void tryFormsReturnBackPressuredAndSendNothingWhenThePathIsFull() {
        exactJob(2, client -> {
            final Am am = Am.of(client);
            client.attachSegment(SEGMENT);
            final KitSignals signals = signals();
            final AtomicLong shorts = new AtomicLong();
            final AtomicInteger others = new AtomicInteger();
            final AtomicInteger replies = new AtomicInteger();
            final int pong = am.register(AmHandler.shortReply(2, (t, a) -> replies.addAndGet(a.get(0) + a.get(1))));
            final int ping = am.register(AmHandler.shortRequest(2, (t, a) -> {
                assertEquals(Am.OK, t.tryReplyShort(pong, a.get(0), a.get(1)));
            }));
            final int shortH = am.register(AmHandler.shortRequest(1, (t, a) -> shorts.incrementAndGet()));
            final int mediumH = am.register(AmHandler.mediumRequest(1, (t, p, a) -> others.incrementAndGet()));
            final int longH = am.register(AmHandler.longRequest(1, (t, p, a) -> others.incrementAndGet()));
            final Marker marker = new Marker(am);
            client.barrier();
            final MemorySegment src = Arena.ofAuto().allocate(256);
            if (client.rank() == 0) {
                // not before rank 1 has left the barrier: polls of its barrier wait delivered early frames of the
                // flood and gave their room back, after the Short and Medium tries had found the path full
                pollUntilPosted(client, signals, "rank1-out", Duration.ofSeconds(60));
                long ok = -1; // what rank 1 is told if the flood fails: it stops waiting, and fails too
                try {
                    long sent = 0;
                    int code = Am.OK;
                    for (long i = 0; i < 50_000_000L && code == Am.OK; i++) {
                        code = am.tryRequestShort(1, shortH, 7);
                        sent += code == Am.OK ? 1 : 0;
                    }
                    assertEquals(Am.BACK_PRESSURED, code, "a peer that does not poll must fill the path");
                    assertEquals(Am.BACK_PRESSURED, am.tryRequestMedium(1, mediumH, src, 0, 256, Lc.NOW, 1));
                    assertEquals(Am.BACK_PRESSURED, am.tryRequestLong(1, longH, src, 0, 256, 0, Lc.NOW, 1));
                    ok = sent;
                } finally {
                    signals.post("accepted", ok);
                }
                marker.send(1); // waits for room, which rank 1 frees by polling: after any frame the tries sent
            } else {
                // rank 1 does not poll until rank 0 has filled the path: a signal is awaited without polling
                signals.post("rank1-out", 1);
                final long accepted = signals.await("accepted", Duration.ofSeconds(60));
                assertTrue(accepted > 0, "rank 0 had no short request accepted before the path filled: " + accepted);
                marker.await(client, 1);
                assertEquals(accepted, shorts.get(), "exactly the accepted short requests are delivered");
                assertEquals(0, others.get(), "a back-pressured Medium or Long was delivered");
            }
            client.barrier();
            // with room again, every try form sends
            final int peer = (client.rank() + 1) % 2;
            assertEquals(Am.OK, am.tryRequestMedium(peer, mediumH, src, 0, 256, Lc.NOW, 1));
            assertEquals(Am.OK, am.tryRequestLong(peer, longH, src, 0, 256, 0, Lc.NOW, 1));
            assertEquals(Am.OK, am.tryRequestShort(peer, ping, 20, 22));
            pollUntil(client, () -> replies.get() == 42 && others.get() == 2);
            client.barrier();
        });
    }

    /** gex_NBI_Wait/Test cover the calling thread's operations only. */
    @Test
    void nbiCompletionIsPerThread() {
        job(2, Map.of("GEX_RMA_OVER_AM", "1"), client -> {
            final Rma rma = Rma.of(client);
            client.attachSegment(SEGMENT);
            client.barrier();
            final int peer = (client.rank() + 1) % client.size();
            final MemorySegment buf = Arena.ofShared().allocate(4096);
            final AtomicReference<Throwable> other = new AtomicReference<>();
            final CountDownLatch issued = new CountDownLatch(1);
            final CountDownLatch checked = new CountDownLatch(1);
            final Thread t = Thread.ofPlatform().start(() -> {
                try {
                    rma.putNbi(peer, 0, buf, 0, 4096, Lc.NOW);
                    assertFalse(client.nbiTest(Ec.PUT), "the ack cannot have come: nobody polled");
                    issued.countDown();
                    assertTrue(checked.await(30, TimeUnit.SECONDS));
                    client.nbiWait(Ec.PUT);
                    assertTrue(client.nbiTest(Ec.PUT));
                } catch (Throwable e) {
                    other.set(e);
                    issued.countDown();
                }
            });
            assertTrue(issued.await(30, TimeUnit.SECONDS));
            assertTrue(client.nbiTest(Ec.PUT), "this thread has no put in flight");
            client.nbiWait(Ec.PUT); // returns at once: the other thread's put is not this thread's
            checked.countDown();
            t.join(30_000);
            assertFalse(t.isAlive(), "the other thread's nbiWait hung");
            if (other.get() != null) {
                throw new AssertionError("other thread", other.get());
            }
            client.barrier();
        });
    }

    /** A second Gex.init of the same rank of the same job is refused in so many words, on every rank. */
    @Test
    void aRankJoinsItsJobOnce() {
        job(1, client -> {
            final IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> org.gexj.Gex.init("AGAIN", org.gexj.Config.of(Map.of("GEX_JOB_ID", client.jobId(),
                    "GEX_RANK", Integer.toString(client.rank()), "GEX_SIZE", Integer.toString(client.size())))));
            assertMentions(e, "rank " + client.rank(), "joined already");
            assertSame(IllegalStateException.class, e.getClass());
        });
    }
}
