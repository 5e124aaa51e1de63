package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Flags;
import org.gexj.HandlerContextException;
import org.gexj.JobExitException;
import org.gexj.Lc;
import org.gexj.PeerFailedException;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Args;
import org.gexj.am.Payload;
import org.gexj.am.Token;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Active-message conformance (GASNet-EX semantics, DESIGN.md section 2), written once and run against every conduit:
 * args and payloads of every category and size class, Long-before-handler, handler-context rules, handler indices,
 * bad arguments, IMMEDIATE back-pressure and many-to-one floods.
 */
public abstract class AmConformanceKit extends ConduitKit {
    protected static final long SEGMENT = 4L << 20;

    protected static void pollUntil(Client client, BooleanSupplier done) {
        while (!done.getAsBoolean()) {
            client.poll();
            Thread.onSpinWait();
        }
    }

    protected static int peerOf(Client c) {
        return (c.rank() + 1) % c.size();
    }

    private static void checkPattern(List<String> errors, String what, Payload p, int seed) {
        final long n = p.length();
        for (long i = 0; i < n; i++) {
            if (p.getByte(i) != Patterns.at(seed, i)) {
                errors.add(what + " payload of " + n + " bytes differs at byte " + i);
                return;
            }
        }
    }

    /**
     * With threads, rank 0's wait is checked directly; with gexrun, rank 0 is a process that its failure watch may end
     * before its wait throws, so the job's output is checked: rank 1's exception, and rank 0 naming rank 1 as failed.
     * Under mpirun the resource manager ends the job for rank 1 (PMIx_Abort), and rank 1's message names it.
     */
    @Test
    void aPollLoopWaitingOnAFailedPeerEndsWithPeerFailed() {
        final AtomicReference<Throwable> waiter = new AtomicReference<>();
        final AssertionError jobError = assertThrows(AssertionError.class, () -> job(2, client -> {
            if (client.rank() == 1) {
                client.barrier();
                throw new IllegalStateException("rank 1 gives up");
            }
            try {
                // on a conduit with latency the failure may overtake rank 1's barrier message: it ends the barrier then
                client.barrier();
                pollUntil(client, () -> false);
            } catch (Throwable t) {
                waiter.set(t);
                throw t;
            }
        }));
        assertTrue(failedWith(jobError, IllegalStateException.class), String.valueOf(jobError));
        if (launchesProcesses() && launch() == Launch.MPIRUN) {
            // rank 1 asks the resource manager to end the job (PMIx_Abort), which kills the others at once
            assertTrue(jobError.getMessage().contains("gex: rank 1: ending the job: rank 1 aborted: "
                + IllegalStateException.class.getName() + ": rank 1 gives up"), "rank 1 names itself and its failure"
                + " as it ends the job: " + jobError.getMessage());
        } else if (launchesProcesses()) {
            assertTrue(jobError.getMessage().contains(PeerFailedException.class.getName() + ": rank 1 failed"),
                "rank 0 names rank 1 as failed: " + jobError.getMessage());
        } else {
            final PeerFailedException failed = assertInstanceOf(PeerFailedException.class, waiter.get());
            assertEquals(1, failed.rank(), failed.getMessage());
        }
    }

    /**
     * exit(code) is gasnet_exit: it ends every rank; a non-zero code fails the job, exit(0) ends it successfully. With
     * gexrun every rank process exits with the code, and so does the launcher; under mpirun, rank 1 ends the job through
     * the resource manager, and mpirun exits with the code.
     */
    @Test
    void exitOfOneRankEndsTheOthersWaits() {
        for (int code : new int[] {5, 0}) {
            final AtomicReference<Throwable> waiter = new AtomicReference<>();
            final Runnable run = () -> job(2, client -> {
                if (client.rank() == 1) {
                    client.barrier();
                    assertTrue(assertThrows(IllegalArgumentException.class, () -> client.exit(256)).getMessage()
                        .contains("[0, 255]"));
                    assertThrows(IllegalArgumentException.class, () -> client.exit(-1));
                    client.exit(code);
                }
                try {
                    client.barrier(); // the exit may overtake rank 1's barrier message on a conduit with latency
                    pollUntil(client, () -> false);
                } catch (Throwable t) {
                    waiter.set(t);
                    throw t;
                }
            });
            if (code == 0) {
                run.run();
            } else if (launchesProcesses()) {
                final AssertionError e = assertThrows(AssertionError.class, run::run);
                assertTrue(e.getMessage().contains("exited with " + code + ":"), e.getMessage());
                if (launch() == Launch.MPIRUN) {
                    // rank 1 ends the job through the resource manager (PMIx_Abort), mpirun exits with its code
                    assertTrue(e.getMessage().contains("gex: rank 1: ending the job: rank 1 called exit(" + code + ")"),
                        e.getMessage());
                } else {
                    // every rank exits with the code, so the launcher may see any of them first
                    assertTrue(e.getMessage().matches("(?s).*gexrun: exit codes by rank:( \\d+=" + code
                        + ")+(\n.*)?"), e.getMessage());
                }
            } else {
                final AssertionError e = assertThrows(AssertionError.class, run::run);
                final JobExitException exit = assertInstanceOf(JobExitException.class, e.getCause(), String.valueOf(e));
                assertEquals(code, exit.code());
                assertEquals(1, exit.rank());
            }
            if (!launchesProcesses()) {
                final PeerFailedException failed = assertInstanceOf(PeerFailedException.class, waiter.get());
                assertEquals(1, failed.rank());
                assertTrue(failed.getMessage().contains("exit(" + code + ")"), failed.getMessage());
            }
        }
    }

    @Test
    void shortRequestsAndRepliesCarryEveryArity() {
        exactJob(2, client -> {
            final Am am = Am.of(client);
            final int[][] got = new int[Am.MAX_ARGS + 1][];
            final AtomicInteger replies = new AtomicInteger();
            final int[] replyIndex = new int[Am.MAX_ARGS + 1];
            final int[] requestIndex = new int[Am.MAX_ARGS + 1];
            for (int n = 0; n <= Am.MAX_ARGS; n++) {
                replyIndex[n] = am.register(AmHandler.shortReply(n, (t, a) -> {
                    final int[] v = new int[a.count()];
                    a.copyTo(v);
                    got[a.count()] = v;
                    replies.incrementAndGet();
                }));
            }
            for (int n = 0; n <= Am.MAX_ARGS; n++) {
                final int reply = replyIndex[n];
                requestIndex[n] = am.register(AmHandler.shortRequest(n, (t, a) -> {
                    final int[] v = new int[Am.MAX_ARGS];
                    final int count = a.copyTo(v);
                    assertTrue(t.isRequest());
                    assertEquals(peerOf(client), t.sourceRank(), "2 ranks: the requester is my peer");
                    assertEquals(Am.OK, t.replyShort(reply, 0, v, count));
                }));
            }
            client.barrier();
            final int peer = peerOf(client);
            assertEquals(Am.OK, am.requestShort(peer, requestIndex[0]));
            assertEquals(Am.OK, am.requestShort(peer, requestIndex[1], 1000));
            assertEquals(Am.OK, am.requestShort(peer, requestIndex[2], 2000, 2001));
            assertEquals(Am.OK, am.requestShort(peer, requestIndex[3], 3000, 3001, 3002));
            assertEquals(Am.OK, am.requestShort(peer, requestIndex[4], 4000, 4001, 4002, 4003));
            for (int n = 5; n <= Am.MAX_ARGS; n++) {
                final int[] args = new int[n];
                for (int i = 0; i < n; i++) {
                    args[i] = n * 1000 + i;
                }
                assertEquals(Am.OK, am.requestShort(peer, requestIndex[n], 0, args, n));
            }
            pollUntil(client, () -> replies.get() == Am.MAX_ARGS + 1);
            for (int n = 0; n <= Am.MAX_ARGS; n++) {
                final int[] expected = new int[n];
                for (int i = 0; i < n; i++) {
                    expected[i] = n * 1000 + i;
                }
                assertArrayEquals(expected, got[n], "args of the " + n + "-arg round trip");
            }
            client.barrier();
        });
    }

    @Test
    void mediumPayloadsRoundTripAtEverySizeClass() {
        job(2, client -> {
            final Am am = Am.of(client);
            final long max = Math.min(am.maxRequestMedium(-1, 1), am.maxReplyMedium(-1, 1));
            final long[] sizes = {0, 1, 7, 8, 9, 512, 4095, 4096, 4097, max - 1, max};
            final List<String> errors = new CopyOnWriteArrayList<>();
            final AtomicInteger replies = new AtomicInteger();
            final MemorySegment scratch = Arena.ofAuto().allocate(max);
            final int reply = am.register(AmHandler.mediumReply(1, (t, p, a) -> {
                checkPattern(errors, "reply", p, a.get(0));
                assertEquals(-1, p.segmentOffset());
                replies.incrementAndGet();
            }));
            final int request = am.register(AmHandler.mediumRequest(1, (t, p, a) -> {
                checkPattern(errors, "request", p, a.get(0));
                final MemorySegment back = Arena.ofAuto().allocate(Math.max(1, p.length()));
                p.copyTo(0, back, 0, p.length());
                t.replyMedium(reply, back, 0, p.length(), Lc.NOW, a.get(0));
            }));
            client.barrier();
            final int peer = peerOf(client);
            for (long size : sizes) {
                final int seed = (int) size * 31 + client.rank();
                Patterns.fill(scratch, 0, size, seed);
                assertEquals(Am.OK, am.requestMedium(peer, request, scratch, 0, size, Lc.NOW, seed));
            }
            pollUntil(client, () -> replies.get() == sizes.length);
            assertEquals(List.of(), errors);
            client.barrier();
        });
    }

    /**
     * A request handler replies with the payload it was delivered, whole or a part of it, copied from where it was
     * delivered (for smp, a Medium's ring frame; a Long's segment bytes); a range outside it is rejected before
     * anything is sent, and the handler can still reply.
     */
    @Test
    void mediumReplyFromTheDeliveredPayloadCarriesItsBytes() {
        job(2, client -> {
            final Am am = Am.of(client);
            client.attachSegment(SEGMENT);
            final int max = (int) Math.min(am.maxRequestMedium(-1, 1), am.maxReplyMedium(-1, 2));
            final int[] sizes = {0, 1, 7, 8, 9, 4095, 4096, max};
            final List<String> errors = new CopyOnWriteArrayList<>();
            final AtomicInteger replies = new AtomicInteger();
            // args: the request's pattern seed, and where in the request's payload the echoed bytes began
            final int reply = am.register(AmHandler.mediumReply(2, (t, p, a) -> {
                for (int i = 0; i < p.length(); i++) {
                    if (p.getByte(i) != Patterns.at(a.get(0), a.get(1) + i)) {
                        errors.add("echo of " + p.length() + " bytes from " + a.get(1) + " differs at byte " + i);
                        break;
                    }
                }
                replies.incrementAndGet();
            }));
            final int whole = am.register(AmHandler.mediumRequest(1,
                (t, p, a) -> t.replyMedium(reply, p, 0, p.length(), Lc.NOW, a.get(0), 0)));
            final int part = am.register(AmHandler.mediumRequest(1, (t, p, a) -> {
                final long n = p.length();
                expectBadIn(errors, () -> t.replyMedium(reply, p, -1, 1, Lc.NOW, 0, 0), "[-1, 0)");
                expectBadIn(errors, () -> t.replyMedium(reply, p, 1, n, Lc.NOW, 0, 0), "[1, " + (n + 1) + ")");
                expectBadIn(errors, () -> t.replyMedium(reply, p, n, -1, Lc.NOW, 0, 0), "payload of -1 bytes");
                final long from = n / 4;
                final Lc lc = Lc.event();
                t.replyMedium(reply, p, from, n / 2, lc, 0, new int[] {a.get(0), (int) from}, 2);
                if (!lc.lastEvent().test()) {
                    errors.add("the copied echo of " + n + " bytes is not locally complete at return");
                }
            }));
            final int fromLong = am.register(AmHandler.longRequest(1,
                (t, p, a) -> t.replyMedium(reply, p, 0, p.length(), Lc.NOW, a.get(0), 0)));
            client.barrier();
            final int peer = peerOf(client);
            final MemorySegment src = Arena.ofAuto().allocate(max);
            long dest = 0;
            for (int size : sizes) {
                final int seed = size * 31 + client.rank();
                Patterns.fill(src, 0, size, seed);
                assertEquals(Am.OK, am.requestMedium(peer, whole, src, 0, size, Lc.NOW, seed));
                assertEquals(Am.OK, am.requestMedium(peer, part, src, 0, size, Lc.NOW, seed));
                assertEquals(Am.OK, am.requestLong(peer, fromLong, src, 0, size, dest, Lc.NOW, seed));
                dest += size;
            }
            pollUntil(client, () -> replies.get() == 3 * sizes.length);
            assertEquals(List.of(), errors);
            client.barrier();
        });
    }

    private static void expectBadIn(List<String> errors, Runnable send, String mentioned) {
        try {
            send.run();
            errors.add("a send naming '" + mentioned + "' was allowed");
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().contains(mentioned)) {
                errors.add("message '" + e.getMessage() + "' should name " + mentioned);
            }
        }
    }

    /** Medium and Long requests and replies carry every arity 0..16 with their payload. */
    @Test
    void mediumAndLongCarryEveryArity() {
        job(2, client -> {
            final Am am = Am.of(client);
            final MemorySegment segment = client.attachSegment(SEGMENT).memory();
            final int n = Am.MAX_ARGS + 1;
            final int size = 300;
            final List<String> errors = new CopyOnWriteArrayList<>();
            final AtomicInteger replies = new AtomicInteger();
            final int[] mediumReply = new int[n];
            final int[] longReply = new int[n];
            final int[] mediumRequest = new int[n];
            final int[] longRequest = new int[n];
            for (int k = 0; k < n; k++) {
                final int nargs = k;
                mediumReply[k] = am.register(AmHandler.mediumReply(nargs, (t, p, a) -> {
                    checkArgs(errors, "Medium reply", a, nargs, 2);
                    checkPattern(errors, "Medium reply " + nargs, p, nargs);
                    replies.incrementAndGet();
                }));
                longReply[k] = am.register(AmHandler.longReply(nargs, (t, p, a) -> {
                    checkArgs(errors, "Long reply", a, nargs, 4);
                    checkPattern(errors, "Long reply " + nargs, p, nargs);
                    replies.incrementAndGet();
                }));
                mediumRequest[k] = am.register(AmHandler.mediumRequest(nargs, (t, p, a) -> {
                    checkArgs(errors, "Medium request", a, nargs, 1);
                    checkPattern(errors, "Medium request " + nargs, p, nargs);
                    // the reply's source lies apart from the Long destinations, which may arrive in any order
                    Patterns.fill(segment, SEGMENT / 4, size, nargs);
                    t.replyMedium(mediumReply[nargs], segment, SEGMENT / 4, size, Lc.NOW, 0, argsFor(nargs, 2), nargs);
                }));
                longRequest[k] = am.register(AmHandler.longRequest(nargs, (t, p, a) -> {
                    checkArgs(errors, "Long request", a, nargs, 3);
                    checkPattern(errors, "Long request " + nargs, p, nargs);
                    t.replyLong(longReply[nargs], segment, p.segmentOffset(), size, SEGMENT / 2 + nargs * 1024L, Lc.NOW,
                        0, argsFor(nargs, 4), nargs);
                }));
            }
            client.barrier();
            final int peer = peerOf(client);
            final MemorySegment src = Arena.ofAuto().allocate(size);
            for (int k = 0; k < n; k++) {
                Patterns.fill(src, 0, size, k);
                assertEquals(Am.OK, am.requestMedium(peer, mediumRequest[k], src, 0, size, Lc.NOW, 0, argsFor(k, 1), k));
                assertEquals(Am.OK, am.requestLong(peer, longRequest[k], src, 0, size, k * 1024L, Lc.NOW, 0,
                    argsFor(k, 3), k));
            }
            pollUntil(client, () -> replies.get() == 2 * n);
            assertEquals(List.of(), errors);
            client.barrier();
        });
    }

    private static int[] argsFor(int nargs, int salt) {
        final int[] a = new int[nargs];
        for (int i = 0; i < nargs; i++) {
            a[i] = salt * 1_000_000 + nargs * 1000 + i - 500;
        }
        return a;
    }

    private static void checkArgs(List<String> errors, String what, Args a, int nargs, int salt) {
        if (a.count() != nargs) {
            errors.add(what + " with " + nargs + " args arrived with " + a.count());
            return;
        }
        final int[] expected = argsFor(nargs, salt);
        for (int i = 0; i < nargs; i++) {
            if (a.get(i) != expected[i]) {
                errors.add(what + " arg " + i + " of " + nargs + " is " + a.get(i) + ", expected " + expected[i]);
            }
        }
    }

    @Test
    void longPayloadIsInPlaceBeforeItsHandlerRunsAndDestIsPassedThrough() {
        job(2, client -> {
            final Am am = Am.of(client);
            final MemorySegment segment = client.attachSegment(SEGMENT).memory();
            final List<String> errors = new CopyOnWriteArrayList<>();
            final AtomicInteger replies = new AtomicInteger();
            // every size the conduit and Long protocol allow: a packed-only protocol stops at the frame
            final long max = Math.min(am.maxRequestLong(-1, 2), am.maxReplyLong(-1, 2));
            final long[] sizes = java.util.stream.LongStream.of(0, 1, 8, 4095, 4096, 65536, 1 << 20, Math.min(max, 1 << 20))
                .filter(n -> n <= max).distinct().toArray();
            final int reply = am.register(AmHandler.longReply(2, (t, p, a) -> {
                final long dest = a.get(1);
                if (p.segmentOffset() != dest) {
                    errors.add("reply dest " + p.segmentOffset() + " != " + dest);
                }
                if (Patterns.firstMismatch(client.segment().memory(), dest, p.length(), a.get(0)) >= 0) {
                    errors.add("reply Long payload of " + p.length() + " not in place at handler start");
                }
                replies.incrementAndGet();
            }));
            final int request = am.register(AmHandler.longRequest(2, (t, p, a) -> {
                final long dest = a.get(1);
                if (p.segmentOffset() != dest) {
                    errors.add("request dest " + p.segmentOffset() + " != " + dest);
                }
                if (Patterns.firstMismatch(client.segment().memory(), dest, p.length(), a.get(0)) >= 0) {
                    errors.add("request Long payload of " + p.length() + " not in place at handler start");
                }
                checkPattern(errors, "Long view", p, a.get(0));
                // reply the same bytes into the requester's segment, in the upper half
                t.replyLong(reply, client.segment().memory(), dest, p.length(), dest + SEGMENT / 2, Lc.NOW,
                    a.get(0), (int) (dest + SEGMENT / 2));
            }));
            client.barrier();
            final int peer = peerOf(client);
            final MemorySegment src = Arena.ofAuto().allocate(1 << 20);
            long dest = 24;
            for (long size : sizes) {
                final int seed = 7 * (int) size + client.rank();
                Patterns.fill(src, 0, size, seed);
                assertEquals(Am.OK, am.requestLong(peer, request, src, 0, size, dest, Lc.NOW, seed, (int) dest));
                dest += size + 40;
            }
            pollUntil(client, () -> replies.get() == sizes.length);
            assertEquals(List.of(), errors);
            // the whole segment is usable from both ends: the peer reads the last byte this rank wrote
            final Rma rma = Rma.of(client);
            segment.set(ValueLayout.JAVA_BYTE, SEGMENT - 1, (byte) (0x5A + client.rank()));
            client.barrier();
            assertEquals(0x5A + peer, rma.getVal(peer, SEGMENT - 1, 1), "last byte of rank " + peer + "'s segment");
            client.barrier();
        });
    }

    /**
     * Handler and NPAM contexts belong to threads: another thread's NPAM prepare/cancel or access region must not
     * lift the rules inside a handler running on the polling thread, and each thread has its own access region.
     */
    @Test
    void contextsAndAccessRegionsArePerThread() {
        job(2, client -> {
            final Am am = Am.of(client);
            final CountDownLatch inHandler = new CountDownLatch(1);
            final CountDownLatch otherDone = new CountDownLatch(1);
            final List<String> errors = new CopyOnWriteArrayList<>();
            final AtomicInteger handled = new AtomicInteger();
            final int later = am.register(AmHandler.shortRequest(0, (t, a) -> handled.incrementAndGet()));
            final int blocking = am.register(AmHandler.shortRequest(0, (t, a) -> {
                inHandler.countDown();
                boolean otherFinished = false;
                try {
                    otherFinished = otherDone.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                assertTrue(otherFinished, "another thread's NPAM prepare/cancel or access region hung for 30 s while"
                    + " a handler ran on the polling thread");
                expectContextError(errors, "poll in a handler", client::poll);
                expectContextError(errors, "nbiWait in a handler", () -> client.nbiWait(Ec.ALL));
                expectContextError(errors, "a request in a handler", () -> am.requestShort(t.sourceRank(), later));
                handled.incrementAndGet();
            }));
            client.barrier();
            if (client.rank() == 0) {
                final Thread other = new Thread(() -> {
                    try {
                        if (!inHandler.await(30, TimeUnit.SECONDS)) {
                            errors.add("other thread: the blocking handler did not start within 30 s");
                        }
                        am.prepareRequestMedium(0, null, 1, 8, null, 0, 0).cancel();
                        client.beginAccessRegion();
                        client.endAccessRegion();
                    } catch (Throwable e) {
                        errors.add("other thread: " + e);
                    } finally {
                        otherDone.countDown();
                    }
                }, "other-thread");
                other.setDaemon(true); // a hung one must not keep the test JVM alive
                client.beginAccessRegion();
                other.start();
                am.requestShort(0, blocking);
                am.requestShort(0, later);
                pollUntil(client, () -> handled.get() == 2);
                other.join(30_000);
                assertFalse(other.isAlive(), "the other thread hung in its NPAM prepare/cancel or access region: "
                    + List.of(other.getStackTrace()));
                client.endAccessRegion().await();
                assertEquals(List.of(), errors);
                assertEquals(2, handled.get(), "each request handled exactly once");
            }
            client.barrier();
        });
    }

    private static void expectContextError(List<String> errors, String what, Runnable call) {
        try {
            call.run();
            errors.add(what + " was allowed");
        } catch (HandlerContextException expected) {
            // the rule held
        } catch (RuntimeException e) {
            errors.add(what + " threw " + e);
        }
    }

    @Test
    void handlerContextRulesAreEnforcedAtTheOffendingCall() {
        job(2, client -> {
            final Am am = Am.of(client);
            final List<Class<?>> thrown = new CopyOnWriteArrayList<>();
            final AtomicReference<Token> staleToken = new AtomicReference<>();
            final AtomicReference<Payload> stalePayload = new AtomicReference<>();
            final AtomicReference<Args> staleArgs = new AtomicReference<>();
            final AtomicInteger done = new AtomicInteger();
            final int[] self = new int[1];
            final int reply = am.register(AmHandler.shortReply(0, (t, a) -> {
                thrown.add(catchClass(() -> t.replyShort(self[0])));
                thrown.add(catchClass(() -> am.requestShort(peerOf(client), self[0])));
                done.incrementAndGet();
            }));
            final int mediumReply = am.register(AmHandler.mediumReply(0, (t, p, a) -> {
                stalePayload.set(p);
                staleArgs.set(a);
                done.incrementAndGet();
            }));
            self[0] = am.register(AmHandler.shortRequest(0, (t, a) -> {
                thrown.add(catchClass(client::poll));
                thrown.add(catchClass(client::barrier));
                thrown.add(catchClass(() -> am.requestShort(peerOf(client), reply)));
                t.replyShort(reply);
                thrown.add(catchClass(() -> t.replyShort(reply)));
                staleToken.set(t);
            }));
            final int mediumRequest = am.register(AmHandler.shortRequest(0, (t, a) ->
                t.replyMedium(mediumReply, MemorySegment.ofArray(new byte[16]), 0, 16, Lc.NOW)));
            client.barrier();
            am.requestShort(peerOf(client), self[0]);
            am.requestShort(peerOf(client), mediumRequest);
            pollUntil(client, () -> done.get() == 2);
            client.barrier();
            // request handler: poll, barrier, request, second reply; reply handler: reply, request
            assertEquals(List.of(HandlerContextException.class, HandlerContextException.class,
                HandlerContextException.class, HandlerContextException.class,
                HandlerContextException.class, HandlerContextException.class), thrown);
            assertThrows(IllegalStateException.class, () -> staleToken.get().sourceRank());
            assertThrows(IllegalStateException.class, () -> staleToken.get().replyShort(reply));
            assertThrows(IllegalStateException.class, () -> stalePayload.get().getByte(0));
            assertThrows(IllegalStateException.class, () -> staleArgs.get().get(0));
            client.barrier();
        });
    }

    private static Class<?> catchClass(Runnable r) {
        try {
            r.run();
            return Void.class;
        } catch (RuntimeException e) {
            return e.getClass();
        }
    }

    @Test
    void handlerIndicesFollowGasnetRules() {
        job(1, client -> {
            final Am am = Am.of(client);
            final AmHandler h = AmHandler.shortRequest(0, (t, a) -> { });
            assertEquals(255, am.register(h));
            assertEquals(254, am.register(h));
            assertEquals(200, am.register(200, h));
            assertEquals(253, am.register(0, h));
            final IllegalArgumentException dup = assertThrows(IllegalArgumentException.class, () -> am.register(200, h));
            assertTrue(dup.getMessage().contains("200"), dup.getMessage());
            final IllegalArgumentException low = assertThrows(IllegalArgumentException.class, () -> am.register(127, h));
            assertTrue(low.getMessage().contains("127") && low.getMessage().contains("[128, 255]"), low.getMessage());
            assertThrows(IllegalArgumentException.class, () -> am.register(256, h));
            assertThrows(IllegalArgumentException.class, () -> AmHandler.shortRequest(17, (t, a) -> { }));
            for (int i = 0; i < 124; i++) {
                am.register(h);
            }
            final IllegalArgumentException full = assertThrows(IllegalArgumentException.class, () -> am.register(h));
            assertTrue(full.getMessage().contains("taken"), full.getMessage());
        });
    }

    @Test
    void badArgumentsAreRejectedAndNothingIsSent() {
        job(2, client -> {
            final Am am = Am.of(client);
            client.attachSegment(64 * 1024);
            final AtomicInteger received = new AtomicInteger();
            final int shortReq = am.register(AmHandler.shortRequest(1, (t, a) -> received.incrementAndGet()));
            final int mediumReq = am.register(AmHandler.mediumRequest(0, (t, p, a) -> received.incrementAndGet()));
            final int longReq = am.register(AmHandler.longRequest(0, (t, p, a) -> received.incrementAndGet()));
            final int replyOnly = am.register(AmHandler.shortReply(0, (t, a) -> received.incrementAndGet()));
            final Marker marker = new Marker(am);
            client.barrier();
            final int peer = peerOf(client);
            final MemorySegment src = Arena.ofAuto().allocate(256 * 1024);
            expectBad(() -> am.requestShort(-1, shortReq, 1), "-1");
            expectBad(() -> am.requestShort(client.size(), shortReq, 1), String.valueOf(client.size()));
            expectBad(() -> am.requestShort(peer, shortReq), "takes 1 args");
            expectBad(() -> am.requestShort(peer, 100, 1), "not registered");
            expectBad(() -> am.requestShort(peer, 0, 1), "0");
            expectBad(() -> am.requestShort(peer, mediumReq, 1), "MEDIUM");
            expectBad(() -> am.requestShort(peer, replyOnly), "REPLY");
            final long max = am.maxRequestMedium(peer, 0);
            expectBad(() -> am.requestMedium(peer, mediumReq, src, 0, max + 1, Lc.NOW), String.valueOf(max + 1));
            expectBad(() -> am.requestMedium(peer, mediumReq, src, src.byteSize() - 4, 8, Lc.NOW), "source range");
            expectBad(() -> am.requestMedium(peer, mediumReq, src, 0, 8, Lc.DEFER), "DEFER");
            expectBad(() -> am.requestLong(peer, longReq, src, 0, 16, 64 * 1024 - 8, Lc.NOW), "65536");
            expectBad(() -> am.requestLong(peer, longReq, src, 0, 16, -16, Lc.NOW), "-16");
            expectBad(() -> am.requestShort(peer, shortReq, 0x40, new int[] {1}, 1), "flags");
            expectBad(() -> am.requestShort(peer, shortReq, 0, new int[0], 1), "nargs");
            // a rejected send that went anyway would arrive before the marker (or, unordered, soon after it)
            marker.send(peer);
            marker.await(client, 1);
            client.barrier();
            assertEquals(0, received.get(), "a rejected send must not deliver anything");
            assertEquals(0, am.droppedFrames());
        });
    }

    private static void expectBad(Runnable send, String mentioned) {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, send::run);
        assertTrue(e.getMessage().contains(mentioned), "message '" + e.getMessage() + "' should name " + mentioned);
    }

    @Test
    void immediateReturnsBackPressuredAndSendsNothingWhenThePathIsFull() {
        exactJob(2, client -> {
            final Am am = Am.of(client);
            client.attachSegment(SEGMENT);
            final AtomicLong received = new AtomicLong();
            final int h = am.register(AmHandler.shortRequest(1, (t, a) -> received.incrementAndGet()));
            final Marker marker = new Marker(am);
            client.barrier();
            final KitSignals signals = signals();
            if (client.rank() == 0) {
                long ok = -1;
                signals.post("past-barrier", 1);
                try {
                    // rank 1 may still be polling in the barrier: a flood would then find room again after it was full
                    signals.await("target-quiet", Duration.ofSeconds(60));
                    final int[] args = {7};
                    ok = 0;
                    int code = Am.OK;
                    for (long i = 0; i < 50_000_000L && code == Am.OK; i++) {
                        code = am.requestShort(1, h, Flags.IMMEDIATE, args, 1);
                        if (code == Am.OK) {
                            ok++;
                        }
                    }
                    assertEquals(Am.BACK_PRESSURED, code, "a peer that does not poll must fill the path");
                    assertEquals(Am.BACK_PRESSURED, am.requestShort(1, h, Flags.IMMEDIATE, args, 1));
                    // every negotiated-payload form fails at prepare, so that no commit could block
                    final MemorySegment buffer = Arena.ofAuto().allocate(4096);
                    assertEquals(null, am.prepareRequestMedium(1, null, 64, 64, null, Flags.IMMEDIATE, 1));
                    assertEquals(null, am.prepareRequestMedium(1, buffer, 64, 64, Lc.NOW, Flags.IMMEDIATE, 1));
                    assertEquals(null, am.prepareRequestLong(1, null, 64, 64, 0, null, Flags.IMMEDIATE, 1));
                    assertEquals(null, am.prepareRequestLong(1, buffer, 64, 64, 0, Lc.NOW, Flags.IMMEDIATE, 1));
                } finally {
                    signals.post("flooded", ok); // on failure too (-1): rank 1 waits for it, not in GEX/J
                }
                marker.send(1); // waits for room, which rank 1 makes as it reads the flood
            } else {
                // on a lossy link rank 0 may still need this rank's barrier message again, which only a poll resends
                while (!signals.posted("past-barrier")) {
                    client.poll();
                }
                signals.post("target-quiet", 1);
                final long sent = signals.await("flooded", Duration.ofSeconds(60));
                assertTrue(sent >= 0, "rank 0 failed during its flood");
                pollUntil(client, () -> received.get() >= sent);
                // a back-pressured send that sent anyway would come before the marker: read it before counting
                marker.await(client, 1);
                client.barrier();
                assertEquals(sent, received.get(), "exactly the accepted sends are delivered");
                return;
            }
            client.barrier();
        });
    }

    /** IMMEDIATE prepares that succeed hold their frame, and their commits deliver exactly what was written. */
    @Test
    void immediateNegotiatedPayloadsCommitWhatWasPrepared() {
        job(2, client -> {
            final Am am = Am.of(client);
            final MemorySegment segment = client.attachSegment(SEGMENT).memory();
            final List<String> errors = new CopyOnWriteArrayList<>();
            final AtomicInteger received = new AtomicInteger();
            final int medium = am.register(AmHandler.mediumRequest(1, (t, p, a) -> {
                checkPattern(errors, "IMMEDIATE NPAM Medium", p, a.get(0));
                received.incrementAndGet();
            }));
            final int lng = am.register(AmHandler.longRequest(1, (t, p, a) -> {
                if (p.segmentOffset() != 8192) {
                    errors.add("IMMEDIATE NPAM Long dest " + p.segmentOffset());
                }
                if (Patterns.firstMismatch(segment, 8192, p.length(), a.get(0)) >= 0) {
                    errors.add("IMMEDIATE NPAM Long payload not in place");
                }
                received.incrementAndGet();
            }));
            final Marker marker = new Marker(am);
            client.barrier();
            final int peer = peerOf(client);
            final MemorySegment buffer = Arena.ofAuto().allocate(4096);
            Patterns.fill(buffer, 0, 1000, 11);
            final var clientMedium = am.prepareRequestMedium(peer, buffer, 100, 1000, Lc.NOW, Flags.IMMEDIATE, 1);
            assertTrue(clientMedium != null && clientMedium.size() == 1000);
            clientMedium.commit(medium, 1000, 11);
            // GASNet grants an NPAM between least and most: an IMMEDIATE Long is granted what travels packed, all of
            // it by default, only the least where nothing is packed (GEX_AMLONG_PACKED_MAX=0)
            final var libraryLong = am.prepareRequestLong(peer, null, 10, 2000, 8192, null, Flags.IMMEDIATE, 1);
            assertTrue(libraryLong != null, "an IMMEDIATE NPAM Long with room on the path is granted");
            if (List.of("copy", "packed").contains(am.longProtocol(2000))) {
                assertEquals(2000, libraryLong.size(), "the IMMEDIATE NPAM Long's grant");
            } else {
                assertTrue(libraryLong.size() >= 10 && libraryLong.size() <= 2000, "grant " + libraryLong.size());
            }
            final int sent = (int) Math.min(1500, libraryLong.size());
            for (int i = 0; i < sent; i++) {
                libraryLong.buffer().putByte(i, Patterns.at(12, i));
            }
            libraryLong.commit(lng, sent, 12);
            final var cancelled = am.prepareRequestLong(peer, buffer, 10, 20, 0, Lc.NOW, Flags.IMMEDIATE, 1);
            cancelled.cancel();
            marker.send(peer);
            pollUntil(client, () -> received.get() == 2);
            marker.await(client, 1);
            client.barrier();
            assertEquals(List.of(), errors);
            assertEquals(2, received.get(), "the cancelled prepare sent nothing");
            assertEquals(0, am.droppedFrames(), "the cancelled prepare sent nothing, not even a malformed frame");
        });
    }

    @Test
    void blockingSendsWaitForRoomAndLoseNothingUnderAManyToOneFlood() {
        job(3, client -> {
            final Am am = Am.of(client);
            final AtomicLong received = new AtomicLong();
            final AtomicLong acked = new AtomicLong();
            final int ack = am.register(AmHandler.shortReply(1, (t, a) -> acked.incrementAndGet()));
            final int h = am.register(AmHandler.mediumRequest(1, (t, p, a) -> {
                received.incrementAndGet();
                t.replyShort(ack, a.get(0));
            }));
            client.barrier();
            final int perPeer = 20_000;
            final MemorySegment src = Arena.ofAuto().allocate(1024);
            for (int i = 0; i < perPeer; i++) {
                for (int r = 0; r < client.size(); r++) {
                    assertEquals(Am.OK, am.requestMedium(r, h, src, 0, 1 + (i % 1000), Lc.NOW, i));
                }
            }
            pollUntil(client, () -> acked.get() == (long) perPeer * client.size());
            client.barrier();
            assertEquals((long) perPeer * client.size(), received.get());
        });
    }

    /**
     * A payload's source is the client's again once the send is locally complete: with Lc.NOW at return, with
     * Lc.GROUP after nbiWait(Ec.AM), with Lc.event() when its event completes. The test overwrites the source right
     * then, and every handler must still find the pattern the source held at the send.
     */
    @Test
    void localCompletionOptionsAreHonoured() {
        job(2, client -> {
            final Am am = Am.of(client);
            final long size = 4096;
            client.attachSegment(64 * 1024);
            final List<String> errors = new CopyOnWriteArrayList<>();
            final AtomicInteger received = new AtomicInteger();
            final int medium = am.register(AmHandler.mediumRequest(1, (t, p, a) -> {
                checkPattern(errors, SENDS[a.get(0)], p, a.get(0));
                received.incrementAndGet();
            }));
            final int lng = am.register(AmHandler.longRequest(1, (t, p, a) -> {
                checkPattern(errors, SENDS[a.get(0)], p, a.get(0));
                received.incrementAndGet();
            }));
            client.barrier();
            final int peer = peerOf(client);
            // the Medium's source, then the Long's
            final MemorySegment src = Arena.ofAuto().allocate(2 * size);

            Patterns.fill(src, 0, size, MEDIUM_GROUP);
            Patterns.fill(src, size, size, LONG_GROUP);
            assertEquals(Am.OK, am.requestMedium(peer, medium, src, 0, size, Lc.GROUP, MEDIUM_GROUP));
            assertEquals(Am.OK, am.requestLong(peer, lng, src, size, size, 0, Lc.GROUP, LONG_GROUP));
            am.nbiWait(Ec.AM);
            assertTrue(am.nbiTest());
            Patterns.fill(src, 0, 2 * size, OVERWRITTEN);

            final Lc mediumLc = Lc.event();
            final Lc longLc = Lc.event();
            Patterns.fill(src, 0, size, MEDIUM_EVENT);
            Patterns.fill(src, size, size, LONG_EVENT);
            assertEquals(Am.OK, am.requestMedium(peer, medium, src, 0, size, mediumLc, MEDIUM_EVENT));
            assertEquals(Am.OK, am.requestLong(peer, lng, src, size, size, size, longLc, LONG_EVENT));
            mediumLc.lastEvent().await();
            Patterns.fill(src, 0, size, OVERWRITTEN);
            longLc.lastEvent().await();
            Patterns.fill(src, size, size, OVERWRITTEN);

            Patterns.fill(src, 0, size, MEDIUM_NOW);
            assertEquals(Am.OK, am.requestMedium(peer, medium, src, 0, size, Lc.NOW, MEDIUM_NOW));
            Patterns.fill(src, 0, size, OVERWRITTEN);
            Patterns.fill(src, size, size, LONG_NOW);
            assertEquals(Am.OK, am.requestLong(peer, lng, src, size, size, 2 * size, Lc.NOW, LONG_NOW));
            Patterns.fill(src, size, size, OVERWRITTEN);

            pollUntil(client, () -> received.get() == 6);
            client.barrier();
            assertEquals(List.of(), errors);
        });
    }

    /** Payload seeds of {@link #localCompletionOptionsAreHonoured}; each indexes the name of its send. */
    private static final int MEDIUM_GROUP = 1;
    private static final int LONG_GROUP = 2;
    private static final int MEDIUM_EVENT = 3;
    private static final int LONG_EVENT = 4;
    private static final int MEDIUM_NOW = 5;
    private static final int LONG_NOW = 6;
    private static final int OVERWRITTEN = 99;
    private static final String[] SENDS = {null, "Medium with Lc.GROUP", "Long with Lc.GROUP", "Medium with Lc.event()",
        "Long with Lc.event()", "Medium with Lc.NOW", "Long with Lc.NOW"};

    @Test
    void negotiatedPayloadPrepareCommitAndCancel() {
        exactJob(2, client -> {
            final Am am = Am.of(client);
            client.attachSegment(64 * 1024);
            final List<String> got = new CopyOnWriteArrayList<>();
            final AtomicInteger replies = new AtomicInteger();
            final int reply = am.register(AmHandler.mediumReply(1, (t, p, a) -> {
                got.add("reply " + p.length() + " " + a.get(0) + " " + p.getByte(0));
                replies.incrementAndGet();
            }));
            final int ack = am.register(AmHandler.shortReply(0, (t, a) -> replies.incrementAndGet()));
            final int medium = am.register(AmHandler.mediumRequest(1, (t, p, a) -> {
                final List<String> errors = new CopyOnWriteArrayList<>();
                checkPattern(errors, "npam", p, a.get(0));
                got.add("medium " + p.length() + " " + a.get(0) + errors);
                final var sd = t.prepareReplyMedium(null, 1, 64, null, 0, 1);
                sd.buffer().setMemory(0, (int) sd.size(), (byte) 1);
                sd.commit(reply, 3, a.get(0));
            }));
            final int lng = am.register(AmHandler.longRequest(1, (t, p, a) -> {
                got.add("long " + p.length() + " at " + p.segmentOffset() + " "
                    + Patterns.firstMismatch(client.segment().memory(), p.segmentOffset(), p.length(), a.get(0)));
                t.replyShort(ack);
            }));
            final Marker marker = new Marker(am);
            client.barrier();
            final int peer = peerOf(client);
            if (client.rank() == 0) {
                // library buffer: the payload is written in place
                final var sd = am.prepareRequestMedium(peer, null, 10, 1000, null, 0, 1);
                assertTrue(sd.size() >= 10 && sd.size() <= 1000, "size " + sd.size());
                assertThrows(HandlerContextException.class, client::poll);
                assertThrows(HandlerContextException.class, () -> am.requestShort(peer, ack));
                assertThrows(HandlerContextException.class, () -> am.prepareRequestMedium(peer, null, 1, 2, null, 0, 0));
                for (int i = 0; i < 500; i++) {
                    sd.buffer().putByte(i, Patterns.at(11, i));
                }
                expectBad(() -> sd.commit(medium, 500, new int[2], 2), "prepared with 1");
                expectBad(() -> sd.commit(medium, sd.size() + 1, 11), "prepared");
                sd.commit(medium, 500, 11);
                assertThrows(IllegalStateException.class, () -> sd.commit(medium, 1, 11));
                // client buffer: the descriptor's buffer is the client's memory
                final MemorySegment mine = Arena.ofAuto().allocate(2000);
                final var cb = am.prepareRequestMedium(peer, mine, 100, 2000, Lc.NOW, 0, 1);
                cb.buffer().putByte(1999, (byte) 77);
                assertEquals(77, mine.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 1999), "the buffer is the client's");
                assertEquals(2000, cb.size());
                Patterns.fill(mine, 0, 2000, 12);
                cb.commit(medium, 2000, 12);
                // cancel sends nothing
                am.prepareRequestMedium(peer, null, 1, 100, null, 0, 1).cancel();
                // Long with a library buffer
                final var lsd = am.prepareRequestLong(peer, null, 1, 4096, 8192, null, 0, 1);
                for (int i = 0; i < 4096; i++) {
                    lsd.buffer().putByte(i, Patterns.at(13, i));
                }
                lsd.commit(lng, 4096, 13);
                final long max = am.maxRequestMedium(peer, 1);
                expectBad(() -> am.prepareRequestMedium(peer, null, max + 1, max + 1, null, 0, 1), "exceeds");
                expectBad(() -> am.prepareRequestMedium(peer, null, 10, 5, null, 0, 1), "least <= most");
                expectBad(() -> am.prepareRequestMedium(peer, null, 1, 5, Lc.NOW, 0, 1), "lc = null");
                pollUntil(client, () -> replies.get() == 3);
                marker.send(1);
            } else {
                marker.await(client, 1);
            }
            client.barrier();
            assertEquals(0, am.droppedFrames(), "the cancelled prepare sent nothing, not even a malformed frame");
            if (client.rank() == 1) {
                // AMs are unordered: compare as sets
                assertEquals(List.of("long 4096 at 8192 -1", "medium 2000 12[]", "medium 500 11[]"),
                    got.stream().sorted().toList());
            } else {
                assertEquals(List.of("reply 3 11 1", "reply 3 12 1"), got.stream().sorted().toList());
            }
            client.barrier();
        });
    }

    /**
     * One program, every conduit: AM Long requests and replies whose source is heap memory
     * ({@code MemorySegment.ofArray}), at an odd offset, of sizes up to several times a conduit's staging buffer
     * (ofi's are 64 KiB), with every local-completion option; each payload is in place when its handler runs.
     */
    @Test
    void longPayloadFromAHeapSourceArrivesInPlace() {
        job(2, client -> {
            final Am am = Am.of(client);
            client.attachSegment(SEGMENT);
            final List<String> errors = new CopyOnWriteArrayList<>();
            final AtomicInteger replies = new AtomicInteger();
            final long max = Math.min(Math.min(am.maxRequestLong(-1, 2), am.maxReplyLong(-1, 2)), 300_000);
            final long[] sizes = java.util.stream.LongStream.of(1, 100, 4096, 65_537, 200_003, max)
                .filter(n -> n <= max).distinct().toArray();
            final byte[] replySource = new byte[(int) max + 5];
            final int reply = am.register(AmHandler.longReply(2, (t, p, a) -> {
                if (Patterns.firstMismatch(client.segment().memory(), p.segmentOffset(), p.length(), a.get(0)) >= 0) {
                    errors.add("heap reply Long of " + p.length() + " not in place at handler start");
                }
                replies.incrementAndGet();
            }));
            final int request = am.register(AmHandler.longRequest(2, (t, p, a) -> {
                if (Patterns.firstMismatch(client.segment().memory(), p.segmentOffset(), p.length(), a.get(0)) >= 0) {
                    errors.add("heap request Long of " + p.length() + " not in place at handler start");
                }
                // answer from the heap too: the handler's thread fills it, the reply returns once it was read
                final MemorySegment heap = MemorySegment.ofArray(replySource);
                Patterns.fill(heap, 5, p.length(), a.get(0) + 1);
                t.replyLong(reply, heap, 5, p.length(), SEGMENT / 2 + a.get(1), Lc.NOW, a.get(0) + 1, 0);
            }));
            client.barrier();
            final int peer = peerOf(client);
            final MemorySegment src = MemorySegment.ofArray(new byte[(int) max + 3]);
            final Lc[] options = {Lc.NOW, Lc.GROUP, Lc.event()};
            long dest = 16;
            for (int i = 0; i < sizes.length; i++) {
                final long size = sizes[i];
                final int seed = 11 * (int) size + client.rank();
                Patterns.fill(src, 3, size, seed);
                final Lc lc = options[i % options.length];
                assertEquals(Am.OK, am.requestLong(peer, request, src, 3, size, dest, lc, seed, (int) dest));
                if (lc == Lc.GROUP) {
                    am.nbiWait(Ec.AM);
                } else if (lc.isEvent()) {
                    lc.lastEvent().await();
                }
                dest += size + 24;
            }
            pollUntil(client, () -> replies.get() == sizes.length);
            assertEquals(List.of(), errors);
            client.barrier();
        });
    }

    /**
     * A 0-byte Long writes nothing, so its dest is passed unchecked (GASNet-EX: "0-byte case must pass dest_addr
     * unchecked"): requestLong, replyLong and NPAM commits of 0 bytes with dest beyond the segment's end run their
     * handlers with an empty payload and that dest, and no byte of either segment changes.
     */
    @Test
    void zeroByteLongsPassTheirDestUncheckedAndWriteNothing() {
        job(2, client -> {
            final Am am = Am.of(client);
            final MemorySegment segment = client.attachSegment(SEGMENT).memory();
            Patterns.fill(segment, 0, SEGMENT, 40 + client.rank());
            final List<String> got = new CopyOnWriteArrayList<>();
            final AtomicInteger replies = new AtomicInteger();
            final int reply = am.register(AmHandler.longReply(1, (t, p, a) -> {
                got.add("reply " + a.get(0) + " " + p.length() + " at " + p.segmentOffset());
                replies.incrementAndGet();
            }));
            final int request = am.register(AmHandler.longRequest(1, (t, p, a) -> {
                got.add("request " + a.get(0) + " " + p.length() + " at " + p.segmentOffset());
                if (a.get(0) == 1) {
                    t.replyLong(reply, null, 0, 0, SEGMENT + 8192, Lc.NOW, 1);
                } else {
                    final var sd = t.prepareReplyLong(null, 0, 64, SEGMENT + 12288, null, 0, 1);
                    if (sd.size() != 0) {
                        got.add("reply prepared " + sd.size() + " bytes beyond the segment");
                    }
                    sd.commit(reply, 0, 2);
                }
            }));
            client.barrier();
            final int peer = peerOf(client);
            assertEquals(Am.OK, am.requestLong(peer, request, null, 0, 0, SEGMENT + 4096, Lc.NOW, 1));
            final var sd = am.prepareRequestLong(peer, null, 0, 64, SEGMENT + 16384, null, 0, 1);
            assertEquals(0, sd.size(), "no byte fits beyond the segment's end");
            sd.commit(request, 0, 2);
            pollUntil(client, () -> replies.get() == 2);
            client.barrier();
            assertEquals(List.of("reply 1 0 at " + (SEGMENT + 8192), "reply 2 0 at " + (SEGMENT + 12288),
                "request 1 0 at " + (SEGMENT + 4096), "request 2 0 at " + (SEGMENT + 16384)),
                got.stream().sorted().toList());
            assertEquals(-1, Patterns.firstMismatch(segment, 0, SEGMENT, 40 + client.rank()), "a 0-byte Long wrote");
            assertEquals(0, am.droppedFrames());
            client.barrier();
        });
    }
}
