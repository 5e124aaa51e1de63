package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.Config;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Direction;
import org.gexj.am.Payload;
import org.gexj.am.SrcDesc;
import org.gexj.am.Token;
import org.gexj.rma.Rma;
import org.gexj.spi.AttachedSegments;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitProvider;
import org.gexj.spi.JobHealth;
import org.gexj.spi.SegmentRules;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input on the public API, on every conduit: each bad call throws an exception naming the bad value and the
 * allowed range (a null reference: a {@link NullPointerException} naming the parameter; a closed client: an
 * {@link IllegalStateException} saying so), sends nothing, and leaves the client usable.
 *
 * <p>"Sends nothing" is checked twice: the rank's own AM and RMA counters ({@code GEX_STATS=1}) do not move across
 * the rejected calls, and the peer, once it has the marker sent after them, has run no handler but the marker's (on a
 * conduit that keeps a sender's order, a stray frame would have come first).
 */
public abstract class BadInputKit extends ConduitKit {
    private static final long SEGMENT = 64 * 1024;
    private static final Map<String, String> STATS = Map.of("GEX_STATS", "1");

    private static void pollUntil(Client client, BooleanSupplier done) {
        while (!done.getAsBoolean()) {
            client.poll();
            Thread.onSpinWait();
        }
    }

    /** What this rank has sent: AM frames committed and RMA operations started (counted only with GEX_STATS=1). */
    private static long sent(Client client) {
        long n = 0;
        for (Map.Entry<String, Long> e : client.stats().entrySet()) {
            if (e.getKey().startsWith("am.sent.") || e.getKey().startsWith("rma.put.")
                || e.getKey().startsWith("rma.get.")) {
                n += e.getValue();
            }
        }
        return n;
    }

    /** Records, rather than throws, so that a handler checks every case and its rank reports them all. */
    private static void expect(List<String> errors, String what, Class<? extends RuntimeException> type,
                               Executable call, String... mentioned) {
        try {
            call.execute();
            errors.add(what + ": accepted");
        } catch (Throwable e) {
            if (!type.isInstance(e)) {
                errors.add(what + ": " + e + " instead of " + type.getSimpleName());
                return;
            }
            for (String m : mentioned) {
                if (e.getMessage() == null || !e.getMessage().contains(m)) {
                    errors.add(what + ": message '" + e.getMessage() + "' does not name " + m);
                }
            }
        }
    }

    private static void expectBad(List<String> errors, String what, Executable call, long bad, long max) {
        expect(errors, what, IllegalArgumentException.class, call, Long.toString(bad), Long.toString(max));
    }

    /**
     * attachSegment refuses -1, 0 and more than GEX_MAX_SEGSIZE in Client, before the conduit is asked: the collective
     * attach that follows pairs with the peer's, and the segment works.
     */
    /**
     * The conduit's own attachSegment, called directly as a layer may (without Client's check first), keeps the one
     * rule of {@link SegmentRules} on every conduit, as GASNet-EX's {@code gex_Segment_Attach}: a non-zero multiple
     * of the operating system's page size, attached once. Before the rule was shared, udp accepted 0 and refused a
     * second attach only by accident, and smp, ofi and emu accepted sizes that were not page multiples.
     */
    @Test
    void everyConduitKeepsTheSameSegmentRule() {
        final Config config = Config.of(environment());
        final String name = config.get("GEX_CONDUIT", "smp");
        final ConduitProvider provider = ServiceLoader.load(ConduitProvider.class).stream()
            .map(ServiceLoader.Provider::get).filter(p -> p.name().equals(name)).findFirst()
            .orElseThrow(() -> new AssertionError("no conduit named " + name));
        final long page = SegmentRules.PAGE_SIZE;
        assertEquals(page, Client.PAGE_SIZE, "Client and the SPI share the page size");
        final String jobId = "gexjkitseg" + Long.toHexString(System.nanoTime());
        try (Conduit conduit = provider.open(new ConduitContext(0, 1, jobId, ThreadBootstrap.job(1)[0], config,
            new JobHealth()))) {
            for (long bad : new long[] {Long.MIN_VALUE, -page, -1, 0, 1, page - 1, page + 1, 3 * page / 2}) {
                final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> conduit.attachSegment(bad), name + " accepted a segment of " + bad + " bytes");
                assertTrue(e.getMessage().contains(name) && e.getMessage().contains(" " + bad + " ")
                    && e.getMessage().contains(Long.toString(page)), e.getMessage());
            }
            final AttachedSegments attached = conduit.attachSegment(2 * page);
            assertEquals(2 * page, attached.local().byteSize());
            assertEquals(0, attached.local().address() % page, "page aligned");
            assertEquals(2 * page, attached.descriptors()[0].size());
            final IllegalStateException again = assertThrows(IllegalStateException.class,
                () -> conduit.attachSegment(page), name + " attached a second segment");
            assertTrue(again.getMessage().contains("already attached a segment of " + 2 * page + " bytes"),
                again.getMessage());
        }
    }

    @Test
    void attachSegmentRefusesBadSizesBeforeTheConduitIsAsked() {
        final long max = 1L << 20;
        job(2, Map.of("GEX_MAX_SEGSIZE", Long.toString(max)), client -> {
            final List<String> errors = new CopyOnWriteArrayList<>();
            for (long bad : new long[] {-1, 0, Client.PAGE_SIZE - 1, max + Client.PAGE_SIZE}) {
                expect(errors, "attachSegment(" + bad + ")", IllegalArgumentException.class,
                    () -> client.attachSegment(bad), Long.toString(bad), Long.toString(Client.PAGE_SIZE),
                    Long.toString(max));
            }
            assertEquals(List.of(), errors);
            assertFalse(client.hasSegment(), "a refused attachSegment attached something");
            final Rma rma = Rma.of(client);
            client.attachSegment(max);
            final int peer = (client.rank() + 1) % 2;
            assertEquals(max, client.segment().size(peer));
            rma.putVal(peer, max - 8, 0x600d + client.rank(), 8);
            client.barrier();
            assertEquals(0x600d + peer, rma.getVal(client.rank(), max - 8, 8));
            client.barrier();
        });
    }

    /** A null handler or lambda: at registration and in every AmHandler factory, naming what is null. */
    @Test
    void nullHandlersAreRefusedNamingTheParameter() {
        job(1, client -> {
            final Am am = Am.of(client);
            final List<String> errors = new CopyOnWriteArrayList<>();
            final Class<NullPointerException> npe = NullPointerException.class;
            expect(errors, "register(null)", npe, () -> am.register(null), "handler");
            expect(errors, "register(200, null)", npe, () -> am.register(200, null), "handler");
            expect(errors, "shortRequest", npe, () -> AmHandler.shortRequest(0, null), "body");
            expect(errors, "shortReply", npe, () -> AmHandler.shortReply(0, null), "body");
            expect(errors, "mediumRequest", npe, () -> AmHandler.mediumRequest(0, null), "body");
            expect(errors, "mediumReply", npe, () -> AmHandler.mediumReply(0, null), "body");
            expect(errors, "longRequest", npe, () -> AmHandler.longRequest(0, null), "body");
            expect(errors, "longReply", npe, () -> AmHandler.longReply(0, null), "body");
            expect(errors, "ofShort(REQREP, null)", npe, () -> AmHandler.ofShort(Direction.REQREP, 0, null), "body");
            expect(errors, "ofShort(null direction)", npe, () -> AmHandler.ofShort(null, 0, (t, a) -> { }),
                "direction");
            expect(errors, "ofMedium(null direction)", npe, () -> AmHandler.ofMedium(null, 0, (t, p, a) -> { }),
                "direction");
            expect(errors, "ofLong(null direction)", npe, () -> AmHandler.ofLong(null, 0, (t, p, a) -> { }),
                "direction");
            expect(errors, "arity 17", IllegalArgumentException.class,
                () -> AmHandler.shortRequest(17, (t, a) -> { }), "17", "[0, 16]");
            assertEquals(List.of(), errors);
            // nothing was registered: the table is as new
            final int h = am.register(AmHandler.shortRequest(0, (t, a) -> { }));
            assertEquals(Am.MAX_INDEX, h, "a refused registration took an index");
        });
    }

    /**
     * Negative and oversized nbytes on every AM send form (request and reply, Medium and Long, the try and array
     * forms, NPAM prepare and commit), and null buffers with bytes to move (AM and RMA), are refused and send nothing.
     */
    @Test
    void badLengthsAndNullBuffersAreRefusedAndSendNothing() {
        job(2, STATS, client -> {
            final Am am = Am.of(client);
            final Rma rma = Rma.of(client);
            client.attachSegment(SEGMENT);
            final List<String> errors = new CopyOnWriteArrayList<>();
            final MemorySegment src = Arena.ofShared().allocate(SEGMENT);
            final AtomicInteger stray = new AtomicInteger();
            final AtomicInteger markers = new AtomicInteger();
            final AtomicInteger good = new AtomicInteger();
            final AtomicInteger probed = new AtomicInteger();
            final int mediumReq = am.register(AmHandler.mediumRequest(0, (t, p, a) -> {
                if (p.length() == 8) {
                    good.incrementAndGet();
                } else {
                    stray.incrementAndGet();
                }
            }));
            final int longReq = am.register(AmHandler.longRequest(0, (t, p, a) -> {
                if (p.length() == 8) {
                    good.incrementAndGet();
                } else {
                    stray.incrementAndGet();
                }
            }));
            final int mediumRep = am.register(AmHandler.mediumReply(0, (t, p, a) -> {
                if (p.length() == 8) {
                    probed.incrementAndGet();
                } else {
                    stray.incrementAndGet();
                }
            }));
            final int longRep = am.register(AmHandler.longReply(0, (t, p, a) -> stray.incrementAndGet()));
            final int marker = am.register(AmHandler.shortRequest(0, (t, a) -> markers.incrementAndGet()));
            final int probe = am.register(AmHandler.mediumRequest(0, (t, p, a) -> {
                final long before = sent(client);
                badReplies(errors, t, p, src, mediumRep, longRep);
                if (sent(client) != before) {
                    errors.add("a refused reply sent something");
                }
                t.replyMedium(mediumRep, p, 0, 8, Lc.NOW); // the token is still usable
            }));
            client.barrier();
            final int peer = (client.rank() + 1) % 2;

            final long before = sent(client);
            badRequests(errors, am, peer, src, mediumReq, longReq);
            badRma(errors, rma, peer, src);
            assertEquals(before, sent(client), "a refused call sent something");
            client.barrier(); // the peer's probe is handled, and replied to, after this rank's count
            am.requestMedium(peer, probe, src, 0, 8, Lc.NOW);
            pollUntil(client, () -> probed.get() == 1);
            am.requestShort(peer, marker);
            pollUntil(client, () -> markers.get() == 1);
            assertEquals(0, stray.get(), "a handler ran for a refused call");

            // usable: each form sends
            am.requestMedium(peer, mediumReq, src, 0, 8, Lc.NOW);
            am.requestLong(peer, longReq, src, 0, 8, 0, Lc.NOW);
            final SrcDesc sd = am.prepareRequestMedium(peer, null, 8, 8, null, 0, 0);
            sd.commit(mediumReq, 8);
            rma.put(peer, 8, src, 0, 8);
            rma.get(src, 0, peer, 8, 8);
            pollUntil(client, () -> good.get() == 3);
            client.barrier();
            assertEquals(List.of(), errors);
            assertEquals(0, stray.get());
            assertEquals(0, am.droppedFrames());
        });
    }

    private static void badRequests(List<String> errors, Am am, int peer, MemorySegment src, int medium, int lng) {
        final long maxM = am.maxRequestMedium(peer, 0);
        final long maxL = am.maxRequestLong(peer, 0);
        final int[] none = new int[0];
        for (long n : new long[] {-1, maxM + 1}) {
            expectBad(errors, "requestMedium " + n, () -> am.requestMedium(peer, medium, src, 0, n, Lc.NOW), n, maxM);
            expectBad(errors, "tryRequestMedium " + n, () -> am.tryRequestMedium(peer, medium, src, 0, n, Lc.NOW), n,
                maxM);
            expectBad(errors, "requestMedium[] " + n,
                () -> am.requestMedium(peer, medium, src, 0, n, Lc.NOW, 0, none, 0), n, maxM);
        }
        for (long n : new long[] {-1, maxL + 1}) {
            expectBad(errors, "requestLong " + n, () -> am.requestLong(peer, lng, src, 0, n, 0, Lc.NOW), n, maxL);
            expectBad(errors, "tryRequestLong " + n, () -> am.tryRequestLong(peer, lng, src, 0, n, 0, Lc.NOW), n,
                maxL);
            expectBad(errors, "requestLong[] " + n, () -> am.requestLong(peer, lng, src, 0, n, 0, Lc.NOW, 0, none, 0),
                n, maxL);
        }
        expect(errors, "prepareRequestMedium least -1", IllegalArgumentException.class,
            () -> am.prepareRequestMedium(peer, null, -1, 8, null, 0, 0), "-1", "0 <= least <= most");
        expectBad(errors, "prepareRequestMedium least max + 1",
            () -> am.prepareRequestMedium(peer, null, maxM + 1, maxM + 1, null, 0, 0), maxM + 1, maxM);
        expect(errors, "prepareRequestLong least -1", IllegalArgumentException.class,
            () -> am.prepareRequestLong(peer, null, -1, 8, 0, null, 0, 0), "-1", "0 <= least <= most");
        expectBad(errors, "prepareRequestLong least max + 1",
            () -> am.prepareRequestLong(peer, null, maxL + 1, maxL + 1, 0, null, 0, 0), maxL + 1, maxL);
        final SrcDesc m = am.prepareRequestMedium(peer, null, 8, 8, null, 0, 0);
        expectBad(errors, "commit Medium -1", () -> m.commit(medium, -1), -1, 8);
        expectBad(errors, "commit Medium 9", () -> m.commit(medium, 9), 9, 8);
        m.cancel();
        final SrcDesc l = am.prepareRequestLong(peer, null, 8, 8, 0, null, 0, 0);
        expectBad(errors, "commit Long -1", () -> l.commit(lng, -1), -1, 8);
        expectBad(errors, "commit Long 9", () -> l.commit(lng, 9), 9, 8);
        l.cancel();
        final Class<NullPointerException> npe = NullPointerException.class;
        expect(errors, "requestMedium null src", npe, () -> am.requestMedium(peer, medium, null, 0, 8, Lc.NOW), "src",
            "8");
        expect(errors, "tryRequestMedium null src", npe, () -> am.tryRequestMedium(peer, medium, null, 0, 8, Lc.NOW),
            "src");
        expect(errors, "requestLong null src", npe, () -> am.requestLong(peer, lng, null, 0, 8, 0, Lc.NOW), "src", "8");
        expect(errors, "requestMedium null lc", npe, () -> am.requestMedium(peer, medium, src, 0, 8, null), "lc");
    }

    private static void badReplies(List<String> errors, Token t, Payload p, MemorySegment src, int medium, int lng) {
        final long maxM = t.maxReplyMedium(0);
        final long maxL = t.maxReplyLong(0);
        final int[] none = new int[0];
        for (long n : new long[] {-1, maxM + 1}) {
            expectBad(errors, "replyMedium " + n, () -> t.replyMedium(medium, src, 0, n, Lc.NOW), n, maxM);
            expectBad(errors, "tryReplyMedium " + n, () -> t.tryReplyMedium(medium, src, 0, n, Lc.NOW), n, maxM);
            expectBad(errors, "replyMedium[] " + n, () -> t.replyMedium(medium, src, 0, n, Lc.NOW, 0, none, 0), n,
                maxM);
        }
        for (int n : new int[] {-1, (int) Math.min(Integer.MAX_VALUE, maxM + 1)}) {
            expectBad(errors, "replyMedium from the payload " + n, () -> t.replyMedium(medium, p, 0, n, Lc.NOW), n,
                maxM);
        }
        for (long n : new long[] {-1, maxL + 1}) {
            expectBad(errors, "replyLong " + n, () -> t.replyLong(lng, src, 0, n, 0, Lc.NOW), n, maxL);
            expectBad(errors, "tryReplyLong " + n, () -> t.tryReplyLong(lng, src, 0, n, 0, Lc.NOW), n, maxL);
            expectBad(errors, "replyLong[] " + n, () -> t.replyLong(lng, src, 0, n, 0, Lc.NOW, 0, none, 0), n, maxL);
        }
        expect(errors, "prepareReplyMedium least -1", IllegalArgumentException.class,
            () -> t.prepareReplyMedium(null, -1, 8, null, 0, 0), "-1", "0 <= least <= most");
        expectBad(errors, "prepareReplyMedium least max + 1",
            () -> t.prepareReplyMedium(null, maxM + 1, maxM + 1, null, 0, 0), maxM + 1, maxM);
        expect(errors, "prepareReplyLong least -1", IllegalArgumentException.class,
            () -> t.prepareReplyLong(null, -1, 8, 0, null, 0, 0), "-1", "0 <= least <= most");
        expectBad(errors, "prepareReplyLong least max + 1",
            () -> t.prepareReplyLong(null, maxL + 1, maxL + 1, 0, null, 0, 0), maxL + 1, maxL);
        final SrcDesc m = t.prepareReplyMedium(null, 8, 8, null, 0, 0);
        expectBad(errors, "commit Medium reply -1", () -> m.commit(medium, -1), -1, 8);
        expectBad(errors, "commit Medium reply 9", () -> m.commit(medium, 9), 9, 8);
        m.cancel();
        final SrcDesc l = t.prepareReplyLong(null, 8, 8, 0, null, 0, 0);
        expectBad(errors, "commit Long reply -1", () -> l.commit(lng, -1), -1, 8);
        expectBad(errors, "commit Long reply 9", () -> l.commit(lng, 9), 9, 8);
        l.cancel();
        final Class<NullPointerException> npe = NullPointerException.class;
        expect(errors, "replyMedium null src", npe, () -> t.replyMedium(medium, (MemorySegment) null, 0, 8, Lc.NOW),
            "src", "8");
        expect(errors, "replyMedium null payload", npe, () -> t.replyMedium(medium, (Payload) null, 0, 8, Lc.NOW),
            "src");
        expect(errors, "replyLong null src", npe, () -> t.replyLong(lng, null, 0, 8, 0, Lc.NOW), "src", "8");
        expect(errors, "replyLong null lc", npe, () -> t.replyLong(lng, src, 0, 8, 0, null), "lc");
    }

    private static void badRma(List<String> errors, Rma rma, int peer, MemorySegment buf) {
        final Class<NullPointerException> npe = NullPointerException.class;
        expect(errors, "put null src", npe, () -> rma.put(peer, 0, null, 0, 8), "src", "8");
        expect(errors, "putNb null src", npe, () -> rma.putNb(peer, 0, null, 0, 8, Lc.NOW), "src");
        expect(errors, "putNbi null src", npe, () -> rma.putNbi(peer, 0, null, 0, 8, Lc.NOW), "src");
        expect(errors, "get null dst", npe, () -> rma.get(null, 0, peer, 0, 8), "dst", "8");
        expect(errors, "getNb null dst", npe, () -> rma.getNb(null, 0, peer, 0, 8), "dst");
        expect(errors, "getNbi null dst", npe, () -> rma.getNbi(null, 0, peer, 0, 8), "dst");
        expect(errors, "putNb null lc", npe, () -> rma.putNb(peer, 0, buf, 0, 8, null), "lc");
        expect(errors, "put -1 bytes", IllegalArgumentException.class, () -> rma.put(peer, 0, buf, 0, -1), "-1");
        expect(errors, "put beyond the segment", IllegalArgumentException.class,
            () -> rma.put(peer, SEGMENT - 4, buf, 0, 8), Long.toString(SEGMENT + 4), Long.toString(SEGMENT));
    }

    /**
     * After close(), every AM, RMA and barrier call (and a reply through a token kept from a handler) throws
     * IllegalStateException saying the client is closed, and sends nothing.
     */
    @Test
    void everyCallAfterCloseSaysTheClientIsClosed() {
        job(2, STATS, client -> {
            final Am am = Am.of(client);
            final Rma rma = Rma.of(client);
            client.attachSegment(SEGMENT);
            final MemorySegment buf = Arena.ofShared().allocate(64);
            final AtomicReference<Token> kept = new AtomicReference<>();
            final int shortReq = am.register(AmHandler.shortRequest(0, (t, a) -> kept.set(t)));
            final int shortRep = am.register(AmHandler.shortReply(0, (t, a) -> { }));
            final int mediumReq = am.register(AmHandler.mediumRequest(0, (t, p, a) -> { }));
            final int longReq = am.register(AmHandler.longRequest(0, (t, p, a) -> { }));
            client.barrier();
            final int peer = (client.rank() + 1) % 2;
            am.requestShort(peer, shortReq);
            pollUntil(client, () -> kept.get() != null);
            client.close();
            final long before = sent(client);
            final List<String> errors = new CopyOnWriteArrayList<>();
            final Class<IllegalStateException> ise = IllegalStateException.class;
            final String closed = "is closed";
            expect(errors, "requestShort", ise, () -> am.requestShort(peer, shortReq), closed);
            expect(errors, "tryRequestShort", ise, () -> am.tryRequestShort(peer, shortReq), closed);
            expect(errors, "requestMedium", ise, () -> am.requestMedium(peer, mediumReq, buf, 0, 8, Lc.NOW), closed);
            expect(errors, "requestLong", ise, () -> am.requestLong(peer, longReq, buf, 0, 8, 0, Lc.NOW), closed);
            expect(errors, "tryRequestLong", ise, () -> am.tryRequestLong(peer, longReq, buf, 0, 8, 0, Lc.NOW), closed);
            expect(errors, "prepareRequestMedium", ise, () -> am.prepareRequestMedium(peer, null, 8, 8, null, 0, 0),
                closed);
            expect(errors, "prepareRequestLong", ise, () -> am.prepareRequestLong(peer, null, 8, 8, 0, null, 0, 0),
                closed);
            expect(errors, "replyShort on a kept token", ise, () -> kept.get().replyShort(shortRep), closed);
            expect(errors, "poll", ise, client::poll, closed);
            expect(errors, "barrier", ise, client::barrier, closed);
            expect(errors, "attachSegment", ise, () -> client.attachSegment(SEGMENT), closed);
            expect(errors, "put", ise, () -> rma.put(peer, 0, buf, 0, 8), closed);
            expect(errors, "putNb", ise, () -> rma.putNb(peer, 0, buf, 0, 8, Lc.NOW), closed);
            expect(errors, "putNbi", ise, () -> rma.putNbi(peer, 0, buf, 0, 8, Lc.NOW), closed);
            expect(errors, "putVal", ise, () -> rma.putVal(peer, 0, 1, 8), closed);
            expect(errors, "get", ise, () -> rma.get(buf, 0, peer, 0, 8), closed);
            expect(errors, "getNb", ise, () -> rma.getNb(buf, 0, peer, 0, 8), closed);
            expect(errors, "getNbi", ise, () -> rma.getNbi(buf, 0, peer, 0, 8), closed);
            expect(errors, "getVal", ise, () -> rma.getVal(peer, 0, 8), closed);
            assertEquals(List.of(), errors);
            assertEquals(before, sent(client), "a call after close sent something");
            client.close(); // again: a no-op
            assertTrue(client.stats().containsKey("am.sent.short.request"), "stats are readable after close");
            assertThrows(ise, () -> am.requestShort(peer, shortReq));
        });
    }
}
