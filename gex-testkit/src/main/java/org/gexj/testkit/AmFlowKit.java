package org.gexj.testkit;

import org.gexj.Ec;
import org.gexj.Flags;
import org.gexj.HandlerContextException;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Active-message conformance, part 2 of 3: IMMEDIATE back-pressure, blocking sends under a many-to-one flood, local
 * completion options, and negotiated payloads (prepare, commit, cancel).
 */
public abstract class AmFlowKit extends AmContextKit {
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
                    // rank 1 may still be polling in the barrier: a flood would then find room again after it was
                    // full. Poll meanwhile: on a lossy link rank 1 may still need this rank's barrier message again,
                    // which only a poll resends (waiting without polling left rank 1 in the barrier for good)
                    final long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                    while (!signals.posted("target-quiet")) {
                        assertTrue(System.nanoTime() < end, "kit signal target-quiet not posted within 60 s");
                        client.poll();
                    }
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
                assertThrows(HandlerContextException.class,
                    () -> am.prepareRequestMedium(peer, null, 1, 2, null, 0, 0));
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
}
