package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.HandlerContextException;
import org.gexj.JobExitException;
import org.gexj.Lc;
import org.gexj.PeerFailedException;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Args;
import org.gexj.am.Payload;
import org.gexj.am.Token;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Active-message conformance, part 1 of 3 (GASNet-EX semantics; docs/DESIGN.md): what a handler may call and where,
 * handler indices, bad arguments, and a peer that fails or exits while others wait; with the helpers the other parts
 * share. Conduits subclass {@link AmConformanceKit}, which runs all three parts.
 */
public abstract class AmContextKit extends ConduitKit {
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

    static void checkPattern(List<String> errors, String what, Payload p, int seed) {
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
     * gexrun every rank process exits with the code, and so does the launcher; under mpirun, rank 1 ends the job
     * through the resource manager, and mpirun exits with the code.
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

    static void expectBadIn(List<String> errors, Runnable send, String mentioned) {
        try {
            send.run();
            errors.add("a send naming '" + mentioned + "' was allowed");
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().contains(mentioned)) {
                errors.add("message '" + e.getMessage() + "' should name " + mentioned);
            }
        }
    }

    static int[] argsFor(int nargs, int salt) {
        final int[] a = new int[nargs];
        for (int i = 0; i < nargs; i++) {
            a[i] = salt * 1_000_000 + nargs * 1000 + i - 500;
        }
        return a;
    }

    static void checkArgs(List<String> errors, String what, Args a, int nargs, int salt) {
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

    static void expectContextError(List<String> errors, String what, Runnable call) {
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

    static Class<?> catchClass(Runnable r) {
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
            final IllegalArgumentException dup = assertThrows(IllegalArgumentException.class,
                () -> am.register(200, h));
            assertTrue(dup.getMessage().contains("200"), dup.getMessage());
            final IllegalArgumentException low = assertThrows(IllegalArgumentException.class,
                () -> am.register(127, h));
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

    static void expectBad(Runnable send, String mentioned) {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, send::run);
        assertTrue(e.getMessage().contains(mentioned), "message '" + e.getMessage() + "' should name " + mentioned);
    }
}
