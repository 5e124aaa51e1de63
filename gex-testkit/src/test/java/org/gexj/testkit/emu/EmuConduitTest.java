package org.gexj.testkit.emu;

import org.agrona.DirectBuffer;
import org.gexj.Config;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.RmaTransport;
import org.gexj.testkit.AllocationKit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The emu conduit on its own: data moves when an operation lands at its target, completions follow landing, duplicate
 * tags come when asked, pools back-pressure, delivery is unordered but reproducible and starves nothing, and closing
 * leaves nothing behind. Each test opens a job of emu conduits and drives every rank from the test's thread.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EmuConduitTest {
    private static final long SEGMENT = 64 * 1024;
    /** Far more polls than any hold (GEX_EMU_DELAY) needs: reaching it means something was lost. */
    private static final int MAX_POLLS = 10_000;

    /** Writes down everything a rank's poll delivers, in order. */
    static final class Recorder implements ConduitListener {
        final List<String> events = new ArrayList<>();
        final List<DirectBuffer> buffers = new ArrayList<>();
        Runnable onWrite = () -> { };

        @Override
        public void onFrame(int channel, DirectBuffer buffer, int offset, int length) {
            buffers.add(buffer);
            events.add((channel == Conduit.REQUEST ? "request " : "reply ") + buffer.getInt(offset) + " of " + length);
        }

        @Override
        public void onRemoteWrite(int source, long immediate) {
            onWrite.run();
            events.add("write from " + source + " imm " + Long.toHexString(immediate));
        }

        @Override
        public void onRmaCompletion(long operation, int status) {
            events.add("done " + operation + " status " + status);
        }

        long count(String prefix) {
            return events.stream().filter(e -> e.startsWith(prefix)).count();
        }
    }

    private static void pollUntil(Conduit conduit, ConduitListener listener, BooleanSupplier done) {
        for (int i = 0; !done.getAsBoolean(); i++) {
            assertTrue(i < MAX_POLLS, "nothing more delivered after " + MAX_POLLS + " polls");
            conduit.poll(listener, Conduit.ALL_CHANNELS, 64);
        }
    }

    /**
     * Polls until nothing can be left: more empty polls in a row than an item can be held back and then wait overdue
     * (the default GEX_EMU_DELAY, which these tests keep).
     */
    private static void drain(Conduit conduit, ConduitListener listener) {
        int quiet = 0;
        for (int i = 0; quiet < 2 * (EmuSettings.DEFAULT_DELAY + 2) && i < MAX_POLLS; i++) {
            quiet = conduit.poll(listener, Conduit.ALL_CHANNELS, 64) == 0 ? quiet + 1 : 0;
        }
    }

    private static void send(Conduit from, Claim claim, int target, int channel, int value) {
        assertEquals(Conduit.OK, from.claim(claim, target, channel, 64));
        claim.buffer().putInt(claim.offset(), value);
        from.commit(claim);
    }

    /** Attaches a segment of every rank (collective: one thread each) and returns rank 1's, the tests' target. */
    static MemorySegment attach(EmuTestJob job) throws InterruptedException {
        final MemorySegment[] mine = new MemorySegment[job.conduits.length];
        final Thread[] threads = new Thread[job.conduits.length];
        for (int r = 0; r < threads.length; r++) {
            final int rank = r;
            threads[r] = Thread.ofPlatform().start(() -> mine[rank] = job.rank(rank).attachSegment(SEGMENT).local());
        }
        for (Thread t : threads) {
            assertTrue(t.join(java.time.Duration.ofSeconds(20)), "attachSegment did not complete");
        }
        return mine[1];
    }

    @Test
    void isFoundByNameAndDeclaresAnUnorderedNativeRmaNetwork() {
        final EmuConduitProvider provider = ServiceLoader.load(org.gexj.spi.ConduitProvider.class).stream()
            .map(ServiceLoader.Provider::get).filter(p -> p.name().equals("emu"))
            .map(EmuConduitProvider.class::cast).findFirst().orElseThrow();
        assertTrue(provider.isAvailable());
        assertNull(provider.unavailabilityCause());
        assertEquals(List.of(), provider.cleanup("anyjob", List.of(1L)));
        try (EmuTestJob job = EmuTestJob.open(2, Map.of("GEX_EMU_FRAME", "4096", "GEX_EMU_IMM_BITS", "32"))) {
            final Capabilities c = job.rank(0).capabilities();
            assertEquals("emu", c.conduit());
            assertEquals(4096, c.maxFrameLength());
            assertEquals(4096, c.maxMediumRequest());
            assertEquals(4096, c.maxMediumReply());
            assertEquals(1 << 30, c.maxLongRequest());
            assertEquals(4096, c.maxPackedLong());
            assertEquals(32, c.immediateBits());
            assertTrue(c.nativeRma() && c.deferredLocalCompletion());
            assertFalse(c.crossMapped() || c.conduitBarrier() || c.orderedChannels());
            final UnsupportedOperationException notMapped = assertThrows(UnsupportedOperationException.class,
                () -> job.rank(0).peerSegment(1));
            assertTrue(notMapped.getMessage().contains("emu") && notMapped.getMessage().contains("crossMapped"),
                notMapped.getMessage());
            assertTrue(job.rank(0).toString().contains("GEX_EMU_SEED="), job.rank(0).toString());
        }
    }

    @Test
    void badSettingsAreRejectedNamingTheValueAndTheRange() {
        final Map<String, String> bad = Map.of("GEX_EMU_IMM_BITS", "48", "GEX_EMU_DUPLICATE_TAGS", "1.5",
            "GEX_EMU_CREDITS", "0", "GEX_EMU_DELAY", "-1", "GEX_EMU_FRAME", "100", "GEX_EMU_SEED", "x12",
            "GEX_EMU_LATENCY_US", "1000001");
        final Map<String, String> named = Map.of("GEX_EMU_IMM_BITS", "48", "GEX_EMU_DUPLICATE_TAGS", "[0, 1]",
            "GEX_EMU_CREDITS", "[1, 4096]", "GEX_EMU_DELAY", "[0, 1000]", "GEX_EMU_FRAME", "[1024, 1048576]",
            "GEX_EMU_SEED", "x12", "GEX_EMU_LATENCY_US", "1000001 outside [0, 1000000]");
        for (Map.Entry<String, String> e : bad.entrySet()) {
            final IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
                () -> EmuSettings.from(Config.of(Map.of(e.getKey(), e.getValue()))));
            assertTrue(thrown.getMessage().contains(e.getKey()) && thrown.getMessage().contains(named.get(e.getKey())),
                thrown.getMessage());
        }
        assertThrows(IllegalArgumentException.class,
            () -> EmuSettings.from(Config.of(Map.of("GEX_EMU_DUPLICATE_TAGS", "NaN"))));
        final EmuSettings defaults = EmuSettings.from(Config.of(Map.of()));
        assertEquals(new EmuSettings(8192, 32, 4, 64, EmuSettings.DEFAULT_SEED, 0, false, 0), defaults);
        assertNotEquals(defaults.rankSeed(0), defaults.rankSeed(1));
    }

    /** The frame is the claimed buffer itself, not a copy, and its credit returns once the target has delivered it. */
    @Test
    void framesTravelInTheClaimedBufferWhichReturnsToItsPoolAfterDelivery() {
        try (EmuTestJob job = EmuTestJob.open(2)) {
            final Claim claim = new Claim();
            final EmuConduit sender = job.rank(0);
            send(sender, claim, 1, Conduit.REQUEST, 42);
            final DirectBuffer sent = claim.buffer();
            assertEquals(1, sender.framesInUse(1, Conduit.REQUEST));
            final Recorder got = new Recorder();
            pollUntil(job.rank(1), got, () -> got.events.size() == 1);
            assertEquals(List.of("request 42 of 64"), got.events);
            assertSame(sent, got.buffers.get(0), "delivered without a copy");
            assertEquals(0, sender.framesInUse(1, Conduit.REQUEST), "the credit came back");
            final IllegalStateException twice = assertThrows(IllegalStateException.class, () -> sender.commit(claim));
            assertTrue(twice.getMessage().contains("not outstanding"), twice.getMessage());
            assertThrows(IllegalArgumentException.class, () -> sender.claim(claim, 2, Conduit.REQUEST, 8));
            assertThrows(IllegalArgumentException.class, () -> sender.claim(claim, 1, 2, 8));
            assertThrows(IllegalArgumentException.class, () -> sender.claim(claim, 1, Conduit.REQUEST, 8193));
        }
    }

    @Test
    void aPutLandsOnlyWhenTheTargetPollsAndReadsItsSourceThen() throws InterruptedException {
        try (EmuTestJob job = EmuTestJob.open(2)) {
            final MemorySegment target = attach(job);
            final MemorySegment src = Arena.ofShared().allocate(256);
            src.fill((byte) 1);
            final RmaTransport rma = job.rank(0).rma();
            assertEquals(Conduit.OK, rma.put(1, 100, src, 0, 256, 7));
            src.fill((byte) 2); // deferred local completion: the source is read when the put lands
            final Recorder initiator = new Recorder();
            for (int i = 0; i < 20; i++) {
                job.rank(0).poll(initiator, Conduit.ALL_CHANNELS, 64);
            }
            assertEquals(List.of(), initiator.events, "no completion before the put has landed");
            assertEquals(0, target.get(ValueLayout.JAVA_BYTE, 100), "the data must wait for the target's poll");
            final Recorder landing = new Recorder();
            pollUntil(job.rank(1), landing, () -> target.get(ValueLayout.JAVA_BYTE, 100) != 0);
            assertEquals(List.of(), landing.events, "a plain put reports nothing at the target");
            for (long i = 0; i < 256; i++) {
                assertEquals(2, target.get(ValueLayout.JAVA_BYTE, 100 + i), "byte " + i + " is the source at landing");
            }
            assertEquals(0, target.get(ValueLayout.JAVA_BYTE, 99));
            assertEquals(0, target.get(ValueLayout.JAVA_BYTE, 356));
            pollUntil(job.rank(0), initiator, () -> !initiator.events.isEmpty());
            assertEquals(List.of("done 7 status 0"), initiator.events);
        }
    }

    @Test
    void aGetCopiesWhenTheTargetDeliversItThenCompletesAtTheInitiator() throws InterruptedException {
        try (EmuTestJob job = EmuTestJob.open(2)) {
            final MemorySegment target = attach(job);
            target.asSlice(0, 64).fill((byte) 9);
            final MemorySegment dst = Arena.ofShared().allocate(64);
            assertEquals(Conduit.OK, job.rank(0).rma().get(dst, 0, 1, 0, 64, 11));
            final Recorder initiator = new Recorder();
            for (int i = 0; i < 20; i++) {
                job.rank(0).poll(initiator, Conduit.ALL_CHANNELS, 64);
            }
            assertEquals(List.of(), initiator.events);
            assertEquals(0, dst.get(ValueLayout.JAVA_BYTE, 0), "nothing read before the target delivers the get");
            pollUntil(job.rank(1), new Recorder(), () -> dst.get(ValueLayout.JAVA_BYTE, 63) == 9);
            pollUntil(job.rank(0), initiator, () -> !initiator.events.isEmpty());
            assertEquals(List.of("done 11 status 0"), initiator.events);
        }
    }

    /** The tag is reported once the data is in place, masked to GEX_EMU_IMM_BITS; the completion comes after. */
    @Test
    void aPutWithImmediateReportsItsTagAfterTheDataLanded() throws InterruptedException {
        for (int bits : new int[] {32, 64}) {
            try (EmuTestJob job = EmuTestJob.open(2, Map.of("GEX_EMU_IMM_BITS", Integer.toString(bits)))) {
                final MemorySegment target = attach(job);
                final MemorySegment src = Arena.ofShared().allocate(8);
                src.set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
                assertEquals(Conduit.OK, job.rank(0).rma().putWithImmediate(1, 8, src, 0, 8, 0xAABBCCDD_01020304L, 3));
                final Recorder landing = new Recorder();
                final long[] atReport = new long[1];
                landing.onWrite = () -> atReport[0] = target.get(ValueLayout.JAVA_LONG, 8);
                pollUntil(job.rank(1), landing, () -> !landing.events.isEmpty());
                assertEquals(List.of("write from 0 imm " + (bits == 32 ? "1020304" : "aabbccdd01020304")),
                    landing.events);
                assertEquals(0x1122334455667788L, atReport[0], "the data is in place when the tag is reported");
                final Recorder initiator = new Recorder();
                pollUntil(job.rank(0), initiator, () -> !initiator.events.isEmpty());
                assertEquals(List.of("done 3 status 0"), initiator.events);
            }
        }
    }

    /** One recorder for both ranks, polled by one thread: its events are in the job's global order. */
    @Test
    void duplicateTagsAreInjectedOnlyWhenAsked() throws InterruptedException {
        for (String probability : new String[] {"0", "1"}) {
            try (EmuTestJob job = EmuTestJob.open(2, Map.of("GEX_EMU_DUPLICATE_TAGS", probability))) {
                attach(job);
                final MemorySegment src = Arena.ofShared().allocate(8);
                final int puts = 20;
                final Recorder both = new Recorder();
                for (int i = 0; i < puts; i++) {
                    assertEquals(Conduit.OK, job.rank(0).rma().putWithImmediate(1, 0, src, 0, 8, i, i));
                }
                for (int i = 0; both.count("done") < puts; i++) {
                    assertTrue(i < MAX_POLLS, "completions missing: " + both.events);
                    job.rank(1).poll(both, Conduit.ALL_CHANNELS, 64);
                    job.rank(0).poll(both, Conduit.ALL_CHANNELS, 64);
                }
                drain(job.rank(1), both);
                final int copies = probability.equals("1") ? 2 : 1;
                for (int i = 0; i < puts; i++) {
                    final String report = "write from 0 imm " + Integer.toHexString(i);
                    assertEquals(copies, both.events.stream().filter(report::equals).count(),
                        "reports of tag " + i + " with probability " + probability);
                    assertEquals(1, both.events.stream().filter(("done " + i + " status 0")::equals).count(),
                        "put " + i + " completes once: " + both.events);
                }
            }
        }
    }

    @Test
    void anExhaustedPoolBackPressuresUntilItsCreditsComeBack() throws InterruptedException {
        try (EmuTestJob job = EmuTestJob.open(2, Map.of("GEX_EMU_CREDITS", "4"))) {
            final EmuConduit sender = job.rank(0);
            final Claim[] claims = {new Claim(), new Claim(), new Claim(), new Claim()};
            final Claim extra = new Claim();
            for (Claim c : claims) {
                assertEquals(Conduit.OK, sender.claim(c, 1, Conduit.REQUEST, 16));
            }
            assertEquals(Conduit.NO_ROOM, sender.claim(extra, 1, Conduit.REQUEST, 16));
            // the other channel and the other target have credits of their own
            assertEquals(Conduit.OK, sender.claim(extra, 1, Conduit.REPLY, 16));
            sender.abort(extra);
            assertEquals(Conduit.OK, sender.claim(extra, 0, Conduit.REQUEST, 16));
            sender.abort(extra);
            // an aborted claim gives its credit back
            sender.abort(claims[0]);
            assertEquals(Conduit.OK, sender.claim(claims[0], 1, Conduit.REQUEST, 16));
            for (int i = 0; i < claims.length; i++) {
                claims[i].buffer().putInt(claims[i].offset(), i);
                sender.commit(claims[i]);
            }
            assertEquals(Conduit.NO_ROOM, sender.claim(extra, 1, Conduit.REQUEST, 16), "committed, not delivered");
            final Recorder got = new Recorder();
            pollUntil(job.rank(1), got, () -> got.events.size() == 4);
            assertEquals(Conduit.OK, sender.claim(extra, 1, Conduit.REQUEST, 16), "delivered: the credits are back");
            sender.abort(extra);

            attach(job);
            final MemorySegment src = Arena.ofShared().allocate(8);
            final RmaTransport rma = sender.rma();
            for (int i = 0; i < 4; i++) {
                assertEquals(Conduit.OK, rma.put(1, 0, src, 0, 8, i));
            }
            assertEquals(Conduit.NO_ROOM, rma.get(src, 0, 1, 0, 8, 4), "4 operations to rank 1 in flight");
            assertEquals(Conduit.OK, rma.put(0, 0, src, 0, 8, 5), "rank 0 itself is another path");
            final Recorder initiator = new Recorder();
            for (int i = 0; initiator.count("done") < 5; i++) {
                assertTrue(i < MAX_POLLS, "completions missing: " + initiator.events);
                job.rank(1).poll(new Recorder(), Conduit.ALL_CHANNELS, 64);
                sender.poll(initiator, Conduit.ALL_CHANNELS, 64);
            }
            assertEquals(Conduit.OK, rma.get(src, 0, 1, 0, 8, 4), "completed: the credits are back");
        }
    }

    /** The order rank 1 delivers 60 frames in, sent by rank 0 on both channels in one burst. */
    private static List<String> deliveryOrder(Map<String, String> settings) {
        try (EmuTestJob job = EmuTestJob.open(2, settings)) {
            final Claim claim = new Claim();
            for (int i = 0; i < 60; i++) {
                send(job.rank(0), claim, 1, i % 2 == 0 ? Conduit.REQUEST : Conduit.REPLY, i);
            }
            final Recorder got = new Recorder();
            pollUntil(job.rank(1), got, () -> got.events.size() == 60);
            drain(job.rank(1), got);
            return got.events;
        }
    }

    @Test
    void theSameSeedGivesTheSameUnorderedDeliveryAndAnotherSeedAnother() {
        final List<String> first = deliveryOrder(Map.of("GEX_EMU_SEED", "5"));
        assertEquals(first, deliveryOrder(Map.of("GEX_EMU_SEED", "5")));
        assertNotEquals(first, deliveryOrder(Map.of("GEX_EMU_SEED", "6")));
        final List<String> sent = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            sent.add((i % 2 == 0 ? "request " : "reply ") + i + " of 64");
        }
        assertNotEquals(sent, first, "delivered in the order sent: nothing reordered");
        assertEquals(sent.stream().sorted().toList(), first.stream().sorted().toList(), "each frame exactly once");
        assertEquals(deliveryOrder(Map.of()), deliveryOrder(Map.of()), "the default seed is fixed");
    }

    /**
     * The SPI's poll contract: a poll of the reply channel brings reply frames and this rank's RMA completions, never a
     * request frame or a remote-write report (either may start a request handler); data lands on any poll.
     */
    @Test
    void aPollOfOneChannelDeliversWhatThatChannelCarries() throws InterruptedException {
        try (EmuTestJob job = EmuTestJob.open(2)) {
            final MemorySegment target = attach(job);
            final Claim claim = new Claim();
            for (int i = 0; i < 10; i++) {
                send(job.rank(0), claim, 1, Conduit.REQUEST, i);
                send(job.rank(0), claim, 1, Conduit.REPLY, 100 + i);
            }
            final MemorySegment src = Arena.ofShared().allocate(8);
            src.fill((byte) 5);
            assertEquals(Conduit.OK, job.rank(0).rma().putWithImmediate(1, 0, src, 0, 8, 1, 1));
            final Recorder got = new Recorder();
            for (int i = 0; i < 100; i++) {
                job.rank(1).poll(got, 1 << Conduit.REPLY, 64);
            }
            assertEquals(10, got.events.size(), String.valueOf(got.events));
            assertTrue(got.events.stream().allMatch(e -> e.startsWith("reply ")), String.valueOf(got.events));
            assertEquals(5, target.get(ValueLayout.JAVA_BYTE, 0), "data lands on a poll of either channel");
            final Recorder initiator = new Recorder();
            pollUntil(job.rank(0), initiator, () -> initiator.count("done") == 1);
            assertEquals(List.of("done 1 status 0"), initiator.events, "the completion does not wait for the report");
            for (int i = 0; i < 100; i++) {
                job.rank(1).poll(got, 1 << Conduit.REQUEST, 64);
            }
            assertEquals(21, got.events.size(), String.valueOf(got.events));
            assertEquals(10, got.events.stream().filter(e -> e.startsWith("request ")).count(),
                String.valueOf(got.events));
            assertTrue(got.events.subList(10, 21).contains("write from 0 imm 1"), "reported on a request poll");
        }
    }

    /**
     * Rank 1 delivers one frame per poll while rank 0 sends one more per poll, so that a random pick alone could pass
     * over a frame again and again. Every frame must come within its hold, the wait of an overdue item and the
     * backlog of older frames ahead of it.
     */
    @Test
    void noFrameIsStarvedByAStreamOfNewerOnes() {
        final int backlog = 32;
        final int polls = 3_000;
        try (EmuTestJob job = EmuTestJob.open(2, Map.of("GEX_EMU_CREDITS", "64"))) {
            final Claim claim = new Claim();
            final long[] poll = new long[1];
            final long[] worst = new long[1];
            final int[] delivered = new int[1];
            final ConduitListener latency = new ConduitListener() {
                @Override
                public void onFrame(int channel, DirectBuffer buffer, int offset, int length) {
                    worst[0] = Math.max(worst[0], poll[0] - buffer.getInt(offset));
                    delivered[0]++;
                }
            };
            for (int i = 0; i < backlog; i++) {
                send(job.rank(0), claim, 1, Conduit.REQUEST, 0);
            }
            for (poll[0] = 1; poll[0] <= polls; poll[0]++) {
                send(job.rank(0), claim, 1, Conduit.REQUEST, (int) poll[0]);
                job.rank(1).poll(latency, Conduit.ALL_CHANNELS, 1);
            }
            assertEquals(polls, delivered[0], "one frame per poll");
            // sent before poll p, held until p + delay at most, overdue after p + 2 * delay + 1, then behind at most
            // the backlog (one frame of it is delivered per poll, as one is added)
            final long bound = 2 * (EmuSettings.DEFAULT_DELAY + 1) + backlog + 1;
            assertTrue(worst[0] <= bound, "a frame waited " + worst[0] + " polls, more than " + bound);
        }
    }

    @Test
    void aClosedPeerIsBackPressuredItsUnlandedOperationsFailAndCloseIsIdempotent() throws InterruptedException {
        final String jobId;
        try (EmuTestJob job = EmuTestJob.open(2)) {
            jobId = job.jobId;
            attach(job);
            final EmuConduit rank0 = job.rank(0);
            final EmuConduit rank1 = job.rank(1);
            final Claim claim = new Claim();
            final MemorySegment src = Arena.ofShared().allocate(8);
            send(rank0, claim, 1, Conduit.REQUEST, 1);
            assertEquals(Conduit.OK, rank0.rma().put(1, 0, src, 0, 8, 21));
            assertEquals(Conduit.OK, rank0.rma().get(src, 0, 1, 0, 8, 22));
            rank1.close();
            rank1.close();
            assertEquals(0, rank0.framesInUse(1, Conduit.REQUEST), "the undelivered frame's credit came back");
            assertEquals(Conduit.NO_ROOM, rank0.claim(claim, 1, Conduit.REQUEST, 8));
            assertEquals(Conduit.NO_ROOM, rank0.rma().put(1, 0, src, 0, 8, 23));
            final Recorder initiator = new Recorder();
            pollUntil(rank0, initiator, () -> initiator.events.size() == 2);
            assertEquals(List.of("done 21 status " + RmaTransport.PEER_CLOSED,
                "done 22 status " + RmaTransport.PEER_CLOSED),
                initiator.events.stream().sorted().toList());
            assertThrows(IllegalStateException.class, () -> rank1.poll(initiator, Conduit.ALL_CHANNELS, 1));
            assertThrows(IllegalStateException.class, () -> rank1.claim(claim, 0, Conduit.REQUEST, 8));
            assertThrows(IllegalStateException.class, () -> rank1.rma().put(0, 0, src, 0, 8, 1));
            assertTrue(EmuJob.isRegistered(jobId), "rank 0 is still open");
        }
        assertFalse(EmuJob.isRegistered(jobId), "the registry forgets a job when its last rank closes");
    }

    /** The initiator's buffer is gone when the put lands: the operation fails, the target goes on. */
    @Test
    void anOperationWhoseBufferIsGoneWhenItLandsCompletesWithAnAccessError() throws InterruptedException {
        try (EmuTestJob job = EmuTestJob.open(2)) {
            final MemorySegment target = attach(job);
            final Arena arena = Arena.ofShared();
            final MemorySegment src = arena.allocate(8);
            src.fill((byte) 3);
            assertEquals(Conduit.OK, job.rank(0).rma().put(1, 0, src, 0, 8, 31));
            arena.close();
            drain(job.rank(1), new Recorder());
            assertEquals(0, target.get(ValueLayout.JAVA_BYTE, 0), "nothing written");
            final Recorder initiator = new Recorder();
            pollUntil(job.rank(0), initiator, () -> !initiator.events.isEmpty());
            assertEquals(List.of("done 31 status " + RmaTransport.ACCESS_ERROR), initiator.events);
            final IllegalArgumentException outside = assertThrows(IllegalArgumentException.class,
                () -> job.rank(0).rma().put(1, SEGMENT - 4, Arena.ofAuto().allocate(8), 0, 8, 32));
            assertTrue(outside.getMessage().contains(Long.toString(SEGMENT)), outside.getMessage());
        }
    }

    @Test
    void concurrentSendersLoseAndDuplicateNothing() throws InterruptedException {
        final int threads = 4;
        final int perThread = 5_000;
        try (EmuTestJob job = EmuTestJob.open(2, Map.of("GEX_EMU_CREDITS", "2"))) {
            final CountDownLatch done = new CountDownLatch(threads);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            final List<Thread> senders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                final int base = t * 1_000_000;
                senders.add(Thread.ofPlatform().name("emu-sender-" + t).daemon().start(() -> {
                    final Claim claim = new Claim();
                    for (int i = 0; i < perThread && System.nanoTime() < deadline; i++) {
                        while (job.rank(0).claim(claim, 1, Conduit.REQUEST, 8) != Conduit.OK
                            && System.nanoTime() < deadline) {
                            Thread.onSpinWait();
                        }
                        claim.buffer().putInt(claim.offset(), base + i);
                        job.rank(0).commit(claim);
                    }
                    done.countDown();
                }));
            }
            final Map<Integer, Integer> seen = new HashMap<>();
            final ConduitListener counter = new ConduitListener() {
                @Override
                public void onFrame(int channel, DirectBuffer buffer, int offset, int length) {
                    seen.merge(buffer.getInt(offset), 1, Integer::sum);
                }
            };
            while (seen.size() < threads * perThread && System.nanoTime() < deadline) {
                job.rank(1).poll(counter, Conduit.ALL_CHANNELS, 64);
            }
            assertTrue(done.await(5, TimeUnit.SECONDS), "a sender was stuck");
            drain(job.rank(1), counter);
            assertEquals(threads * perThread, seen.size(), "distinct frames delivered");
            assertTrue(seen.values().stream().allMatch(n -> n == 1), "a frame was delivered twice");
            assertEquals(0, job.rank(0).framesInUse(1, Conduit.REQUEST));
        }
    }

    /** Counts without allocating. */
    static final class Counting implements ConduitListener {
        int frames;
        int writes;
        int completions;

        @Override
        public void onFrame(int channel, DirectBuffer buffer, int offset, int length) {
            frames++;
        }

        @Override
        public void onRemoteWrite(int source, long immediate) {
            writes++;
        }

        @Override
        public void onRmaCompletion(long operation, int status) {
            completions++;
        }
    }

    /** Commits the claim just made; an expression, to chain with the calls that return a code. */
    private static int commit(Conduit conduit, Claim claim) {
        conduit.commit(claim);
        return Conduit.OK;
    }

    /** Frames both ways and every RMA operation, after warm-up: the claims, queues and pools allocate nothing. */
    @Test
    void theSteadyStateAllocatesNothing() throws InterruptedException {
        final int warmup = 30_000;
        final int measured = 30_000;
        try (EmuTestJob job = EmuTestJob.open(2, Map.of("GEX_EMU_DUPLICATE_TAGS", "0.5"))) {
            attach(job);
            final EmuConduit a = job.rank(0);
            final EmuConduit b = job.rank(1);
            final Claim claim = new Claim();
            final MemorySegment buffer = Arena.ofShared().allocate(1024);
            final Counting atA = new Counting();
            final Counting atB = new Counting();
            long before = 0;
            for (int round = 0; round < warmup + measured; round++) {
                if (round == warmup) {
                    before = AllocationKit.allocatedBytes();
                }
                final int frames = atA.frames + atB.frames + 2;
                final int completions = atA.completions + 3;
                final int started = a.claim(claim, 1, Conduit.REQUEST, 256) | commit(a, claim)
                    | b.claim(claim, 0, Conduit.REPLY, 256) | commit(b, claim)
                    | a.rma().put(1, 0, buffer, 0, 512, round)
                    | a.rma().putWithImmediate(1, 512, buffer, 512, 512, round, round)
                    | a.rma().get(buffer, 0, 1, 0, 1024, round);
                if (started != Conduit.OK) {
                    throw new AssertionError("round " + round + " was back-pressured");
                }
                for (int polls = 0; atA.frames + atB.frames < frames || atA.completions < completions; polls++) {
                    if (polls > MAX_POLLS) {
                        throw new AssertionError("round " + round + " did not complete");
                    }
                    b.poll(atB, Conduit.ALL_CHANNELS, 64);
                    a.poll(atA, Conduit.ALL_CHANNELS, 64);
                }
            }
            final long bytes = AllocationKit.allocatedBytes() - before;
            // one allocation per round would be at least 16 bytes x measured
            assertTrue(bytes < measured / 10, bytes + " bytes allocated over " + measured + " rounds");
        }
    }
}
