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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
            am.requestMedium((client.rank() + 1) % 2, h, src, 0, 100, Lc.NOW, 1, 2);
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
            final int peer = (client.rank() + 1) % 2;
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
     */
    @Test
    void longDestinationOutsideTheSegmentIsRejectedAtPrepare() {
        job(2, client -> {
            final Am am = Am.of(client);
            client.attachSegment(SEGMENT);
            final int h = am.register(AmHandler.longRequest(0, (t, p, a) -> { }));
            client.barrier();
            final int peer = (client.rank() + 1) % 2;
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
                final int peer = (client.rank() + 1) % 2;
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
            final int peer = (client.rank() + 1) % 2;
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
            final int peer = (client.rank() + 1) % 2;
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
                final int peer = (client.rank() + 1) % 2;
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
        final AtomicReference<Throwable> rank0 = new AtomicReference<>();
        final AssertionError e = assertThrows(AssertionError.class, () -> job(2, client -> {
            client.barrier();
            if (client.rank() == 0) {
                client.barrier(); // pairs with rank 1's close()
                try {
                    client.close();
                } catch (Throwable t) {
                    rank0.set(t);
                    throw t;
                }
            }
        }));
        final GexException cause = assertInstanceOf(GexException.class, rank0.get(), String.valueOf(e));
        assertMentions(cause, "rank 1 has closed", "barrier");
    }

    /**
     * A handler that throws while its rank waits in barrier(): the barrier completes its phase before the exception
     * comes out, so the next barrier pairs with the peers' next one and the ranks stay in step.
     */
    @Test
    void aHandlerExceptionInsideBarrierComesOutAfterThePhaseCompletes() {
        job(2, client -> {
            final Am am = Am.of(client);
            final AtomicBoolean peerArrived = new AtomicBoolean();
            final AtomicInteger pongs = new AtomicInteger();
            final int pong = am.register(AmHandler.shortReply(0, (t, a) -> pongs.incrementAndGet()));
            final int ping = am.register(AmHandler.shortRequest(0, (t, a) -> t.replyShort(pong)));
            final int boom = am.register(AmHandler.shortRequest(0, (t, a) -> {
                throw new IllegalStateException("boom");
            }));
            final CountDownLatch sent = SHARED.computeIfAbsent(client.jobId(), k -> new CountDownLatch(1));
            final CountDownLatch rank0Out = SHARED.computeIfAbsent(client.jobId() + "/out", k -> new CountDownLatch(1));
            client.barrier();
            if (client.rank() == 1) {
                // not before rank 0 left the barrier above, whose polls would run the handler there
                assertTrue(rank0Out.await(30, TimeUnit.SECONDS), "rank 0 never left the first barrier");
                am.requestShort(0, boom);
                sent.countDown();
                Thread.sleep(300); // rank 0 is in its barrier by now and has run the handler
                ARRIVED.put(client.jobId(), Boolean.TRUE);
                client.barrier();
            } else {
                rank0Out.countDown();
                assertTrue(sent.await(30, TimeUnit.SECONDS), "rank 1 never sent");
                final IllegalStateException thrown = assertThrows(IllegalStateException.class, client::barrier);
                assertEquals("boom", thrown.getMessage());
                peerArrived.set(ARRIVED.containsKey(client.jobId()));
                assertTrue(peerArrived.get(), "the barrier threw before rank 1 had arrived");
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
        final CountDownLatch flooded = new CountDownLatch(1);
        final java.util.concurrent.atomic.AtomicLong accepted = new java.util.concurrent.atomic.AtomicLong();
        job(2, client -> {
            final Am am = Am.of(client);
            client.attachSegment(SEGMENT);
            final java.util.concurrent.atomic.AtomicLong received = new java.util.concurrent.atomic.AtomicLong();
            final AtomicInteger replies = new AtomicInteger();
            final int pong = am.register(AmHandler.shortReply(2, (t, a) -> replies.addAndGet(a.get(0) + a.get(1))));
            final int ping = am.register(AmHandler.shortRequest(2, (t, a) -> {
                assertEquals(Am.OK, t.tryReplyShort(pong, a.get(0), a.get(1)));
            }));
            final int shortH = am.register(AmHandler.shortRequest(1, (t, a) -> received.incrementAndGet()));
            final int mediumH = am.register(AmHandler.mediumRequest(1, (t, p, a) -> received.incrementAndGet()));
            final int longH = am.register(AmHandler.longRequest(1, (t, p, a) -> received.incrementAndGet()));
            client.barrier();
            final MemorySegment src = Arena.ofAuto().allocate(256);
            if (client.rank() == 0) {
                try {
                    long ok = 0;
                    int code = Am.OK;
                    for (long i = 0; i < 50_000_000L && code == Am.OK; i++) {
                        code = am.tryRequestShort(1, shortH, 7);
                        ok += code == Am.OK ? 1 : 0;
                    }
                    assertEquals(Am.BACK_PRESSURED, code, "a peer that does not poll must fill the path");
                    assertEquals(Am.BACK_PRESSURED, am.tryRequestMedium(1, mediumH, src, 0, 256, Lc.NOW, 1));
                    assertEquals(Am.BACK_PRESSURED, am.tryRequestLong(1, longH, src, 0, 256, 0, Lc.NOW, 1));
                    accepted.set(ok);
                } finally {
                    flooded.countDown();
                }
            } else {
                assertTrue(flooded.await(60, TimeUnit.SECONDS));
                pollUntil(client, () -> received.get() >= accepted.get());
            }
            client.barrier();
            if (client.rank() == 1) {
                assertEquals(accepted.get(), received.get(), "exactly the accepted sends are delivered");
            }
            client.barrier();
            // with room again, every try form sends
            assertEquals(Am.OK, am.tryRequestMedium((client.rank() + 1) % 2, mediumH, src, 0, 256, Lc.NOW, 1));
            assertEquals(Am.OK, am.tryRequestLong((client.rank() + 1) % 2, longH, src, 0, 256, 0, Lc.NOW, 1));
            assertEquals(Am.OK, am.tryRequestShort((client.rank() + 1) % 2, ping, 20, 22));
            pollUntil(client, () -> replies.get() == 42);
            client.barrier();
        });
    }

    private static final Map<String, CountDownLatch> SHARED = new java.util.concurrent.ConcurrentHashMap<>();
    private static final Map<String, Boolean> ARRIVED = new java.util.concurrent.ConcurrentHashMap<>();

    /** gex_NBI_Wait/Test cover the calling thread's operations only. */
    @Test
    void nbiCompletionIsPerThread() {
        job(2, Map.of("GEX_RMA_OVER_AM", "1"), client -> {
            final Rma rma = Rma.of(client);
            client.attachSegment(SEGMENT);
            client.barrier();
            final int peer = (client.rank() + 1) % 2;
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

    /** A second Gex.init of the same rank of the same job is refused in so many words. */
    @Test
    void aRankJoinsItsJobOnce() {
        final AtomicReference<Throwable> second = new AtomicReference<>();
        job(1, client -> {
            final IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> org.gexj.Gex.init("AGAIN", org.gexj.Config.of(Map.of("GEX_JOB_ID", client.jobId(),
                    "GEX_RANK", "0", "GEX_SIZE", "1"))));
            second.set(e);
        });
        assertMentions(second.get(), "rank 0", "joined already");
        assertSame(IllegalStateException.class, second.get().getClass());
        assertArrayEquals(new int[0], new int[0]);
    }
}
