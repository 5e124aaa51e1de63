package org.gexj.testkit;

import org.gexj.Ec;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Active-message conformance (GASNet-EX semantics; docs/DESIGN.md), written once and run against every conduit: this
 * part checks args and payloads of every category and size class, Long-before-handler, heap sources and 0-byte Longs;
 * {@link AmFlowKit} and {@link AmContextKit} add back-pressure, floods, completion, negotiated payloads, handler
 * contexts, indices, bad arguments and failures.
 */
public abstract class AmConformanceKit extends AmFlowKit {
    /**
     * A request to this rank runs its handler inside the request call, and the handler's reply to this rank its reply
     * handler, as GASNet-EX runs loopback AMs (here no other thread of the rank polls, which would make the frame go
     * through the conduit instead): what Short and Medium handlers record is there when the call returns, with no
     * poll. Medium payloads arrive intact, a Long's is in place before its handler runs (inside the call too, unless
     * its payload travels apart from its frame), and a handler that throws ends the request call with its exception,
     * after which loopback works on. The job's other rank does the same meanwhile.
     */
    @Test
    void requestsToThisRankRunTheirHandlersInsideTheCall() {
        job(2, client -> {
            final Am am = Am.of(client);
            final MemorySegment segment = client.attachSegment(SEGMENT).memory();
            final int size = (int) Math.min(am.maxRequestMedium(-1, 1), am.maxReplyMedium(-1, 1));
            final long[] got = new long[3];
            final List<String> errors = new CopyOnWriteArrayList<>();
            final int pong = am.register(AmHandler.shortReply(1, (t, a) -> got[0] = a.get(0)));
            final int ping = am.register(AmHandler.shortRequest(1, (t, a) -> t.replyShort(pong, a.get(0) + 1)));
            final int mediumPong = am.register(AmHandler.mediumReply(1, (t, p, a) -> {
                for (int i = 0; i < p.length(); i++) {
                    if (p.getByte(i) != Patterns.at(a.get(0), i)) {
                        errors.add("looped-back Medium reply of " + p.length() + " bytes differs at byte " + i);
                        break;
                    }
                }
                got[1] = p.length();
            }));
            final int mediumPing = am.register(AmHandler.mediumRequest(1,
                (t, p, a) -> t.replyMedium(mediumPong, p, 0, p.length(), Lc.NOW, a.get(0))));
            final int longPing = am.register(AmHandler.longRequest(1, (t, p, a) -> {
                final long mismatch = Patterns.firstMismatch(segment, p.segmentOffset(), p.length(), a.get(0));
                if (mismatch >= 0) {
                    errors.add("looped-back Long of " + p.length() + " bytes not in place at byte " + mismatch);
                }
                got[2] = p.length();
            }));
            final int thrower = am.register(AmHandler.shortRequest(0, (t, a) -> {
                throw new UnsupportedOperationException("thrown by a looped-back handler");
            }));
            client.barrier();
            final int me = client.rank();
            for (int i = 0; i < 3; i++) {
                assertEquals(Am.OK, am.requestShort(me, ping, 41 + i));
                assertEquals(42 + i, got[0], "the reply handler ran inside requestShort to this rank");
                final int seed = 7 * i + me;
                final int n = i == 0 ? 1 : size / i;
                final MemorySegment src = Arena.ofAuto().allocate(n);
                Patterns.fill(src, 0, n, seed);
                assertEquals(Am.OK, am.requestMedium(me, mediumPing, src, 0, n, Lc.NOW, seed));
                assertEquals(n, got[1], "the Medium reply handler ran inside requestMedium to this rank");
                assertEquals(Am.OK, am.requestLong(me, longPing, src, 0, n, SEGMENT / 2, Lc.NOW, seed));
                // a Long whose payload travels apart from its frame (put-sync-send, reassembly) crosses the conduit
                final long end = System.nanoTime() + 30_000_000_000L;
                while (got[2] != n && System.nanoTime() < end) {
                    client.poll();
                }
                assertEquals(n, got[2], "the Long to this rank arrived");
                final UnsupportedOperationException e = assertThrows(
                    UnsupportedOperationException.class, () -> am.requestShort(me, thrower));
                assertEquals("thrown by a looped-back handler", e.getMessage());
            }
            assertEquals(List.of(), errors);
            client.barrier();
        });
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
                assertEquals(Am.OK, am.requestMedium(peer, mediumRequest[k], src, 0, size, Lc.NOW, 0,
                    argsFor(k, 1), k));
                assertEquals(Am.OK, am.requestLong(peer, longRequest[k], src, 0, size, k * 1024L, Lc.NOW, 0,
                    argsFor(k, 3), k));
            }
            pollUntil(client, () -> replies.get() == 2 * n);
            assertEquals(List.of(), errors);
            client.barrier();
        });
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
            final long[] sizes = java.util.stream.LongStream
                .of(0, 1, 8, 4095, 4096, 65536, 1 << 20, Math.min(max, 1 << 20))
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
