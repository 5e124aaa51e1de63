package org.gexj.smp;

import org.agrona.concurrent.AtomicBuffer;
import org.gexj.smp.Frames.Frame;
import org.gexj.smp.Frames.Recorder;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Claim;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.gexj.spi.Conduit.ALL_CHANNELS;
import static org.gexj.spi.Conduit.NO_ROOM;
import static org.gexj.spi.Conduit.OK;
import static org.gexj.spi.Conduit.REPLY;
import static org.gexj.spi.Conduit.REQUEST;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The AM path: claim / write / commit into the target's ring, poll from one's own. */
class SmpAmTest {
    private static final Map<String, String> RING_64K = Map.of(SmpConduit.RING_BYTES, "64K");

    @Test
    @Timeout(30)
    void capabilitiesFollowTheRingSize() {
        try (SmpJob job = SmpJob.open(2)) {
            final Capabilities c = job.conduits[1].capabilities();
            assertEquals((1 << 20) / 8, c.maxFrameLength());
            assertTrue(c.crossMapped() && c.conduitBarrier() && c.orderedChannels());
            assertFalse(c.nativeRma());
            assertEquals(0, c.immediateBits());
        }
        try (SmpJob job = SmpJob.open(2, rank -> RING_64K)) {
            assertEquals(8192, job.conduits[0].capabilities().maxFrameLength());
        }
    }

    @Test
    @Timeout(30)
    void framesOfManySizesRoundTripOnBothChannelsBetweenAllPairsAndToSelf() {
        try (SmpJob job = SmpJob.open(3)) {
            final int max = job.conduits[0].capabilities().maxFrameLength();
            final int[] sizes = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000, 1023,
                1024, 1025, 4095, 4096, 4097, 65535, 65536, max - 1, max};
            final Recorder recorder = new Recorder();
            long seed = 0;
            for (int src = 0; src < 3; src++) {
                for (int dst = 0; dst < 3; dst++) {
                    for (int channel = REQUEST; channel <= REPLY; channel++) {
                        for (int size : sizes) {
                            final byte[] sent = Frames.pattern(++seed, size);
                            Frames.send(job.conduits[src], dst, channel, sent);
                            final List<Frame> got = recorder.drain(job.conduits[dst]);
                            final String what = size + " bytes " + src + " -> " + dst + " on channel " + channel;
                            assertEquals(1, got.size(), what);
                            assertEquals(channel, got.getFirst().channel(), what);
                            assertArrayEquals(sent, got.getFirst().bytes(), what);
                        }
                    }
                }
            }
        }
    }

    @Test
    @Timeout(30)
    void framesOfOneSenderOnOneChannelArriveInClaimOrder() {
        try (SmpJob job = SmpJob.open(3)) {
            final List<byte[]> sent = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                final byte[] frame = Frames.pattern(i, 8 + i % 97);
                frame[0] = (byte) (i % 3);
                frame[1] = (byte) i;
                sent.add(frame);
                Frames.send(job.conduits[i % 3], 0, i % 2, frame);
            }
            final List<Frame> got = new Recorder().drain(job.conduits[0]);
            assertEquals(300, got.size());
            for (int src = 0; src < 3; src++) {
                for (int channel = REQUEST; channel <= REPLY; channel++) {
                    final int s = src;
                    final int c = channel;
                    final List<byte[]> expected = new ArrayList<>();
                    for (int i = 0; i < 300; i++) {
                        if (i % 3 == s && i % 2 == c) {
                            expected.add(sent.get(i));
                        }
                    }
                    final List<byte[]> delivered = got.stream()
                        .filter(f -> f.channel() == c && f.bytes()[0] == s).map(Frame::bytes).toList();
                    assertEquals(expected.size(), delivered.size());
                    for (int i = 0; i < expected.size(); i++) {
                        assertArrayEquals(expected.get(i), delivered.get(i), "frame " + i + " of " + s + " on " + c);
                    }
                }
            }
        }
    }

    @Test
    @Timeout(30)
    void repliesArePolledFirstAndTheMaskSelectsChannels() {
        try (SmpJob job = SmpJob.open(2)) {
            final SmpConduit target = job.conduits[1];
            Frames.send(job.conduits[0], 1, REQUEST, new byte[] {1});
            Frames.send(job.conduits[0], 1, REPLY, new byte[] {2});
            final Recorder recorder = new Recorder();
            assertEquals(1, target.poll(recorder, ALL_CHANNELS, 1));
            assertEquals(REPLY, recorder.frames.getFirst().channel());
            Frames.send(job.conduits[0], 1, REPLY, new byte[] {3});
            recorder.frames.clear();
            assertEquals(1, target.poll(recorder, 1 << REQUEST, 10));
            assertEquals(REQUEST, recorder.frames.getFirst().channel());
            assertEquals(0, target.poll(recorder, 1 << REQUEST, 10));
            assertEquals(1, target.poll(recorder, 1 << REPLY, 10));
            assertArrayEquals(new byte[] {3}, recorder.frames.getLast().bytes());
        }
    }

    @Test
    @Timeout(30)
    void pollDeliversAtMostLimitFrames() {
        try (SmpJob job = SmpJob.open(2)) {
            for (int i = 0; i < 10; i++) {
                Frames.send(job.conduits[0], 1, REQUEST, new byte[] {(byte) i});
            }
            final Recorder recorder = new Recorder();
            assertEquals(4, job.conduits[1].poll(recorder, ALL_CHANNELS, 4));
            assertEquals(4, job.conduits[1].poll(recorder, ALL_CHANNELS, 4));
            assertEquals(2, job.conduits[1].poll(recorder, ALL_CHANNELS, 4));
            assertEquals(0, job.conduits[1].poll(recorder, ALL_CHANNELS, 4));
        }
    }

    @Test
    @Timeout(30)
    void aFullRingBackPressuresEverySenderUntilTheTargetPolls() {
        try (SmpJob job = SmpJob.open(3, rank -> RING_64K)) {
            final SmpConduit c0 = job.conduits[0];
            final byte[] frame = Frames.pattern(7, 1000);
            final int committed = fillUntilRefused(c0, 2, frame, 100);
            assertTrue(committed >= 60, "a 64 KiB ring took only " + committed + " frames of 1000 bytes");
            final Claim claim = new Claim();
            assertEquals(NO_ROOM, job.conduits[1].claim(claim, 2, REQUEST, frame.length), "full for every sender");
            assertEquals(NO_ROOM, job.conduits[2].claim(claim, 2, REQUEST, frame.length), "and for its owner");
            Frames.send(job.conduits[1], 2, REPLY, frame);
            final List<Frame> got = new Recorder().drain(job.conduits[2]);
            assertEquals(committed + 1, got.size());
            for (Frame f : got) {
                assertArrayEquals(frame, f.bytes());
            }
            for (int i = 0; i < committed; i++) {
                Frames.send(job.conduits[1], 2, REQUEST, frame);
            }
        }
    }

    /**
     * With a window below the capacity, senders of small frames stop at the window (every sender's bytes count), and
     * everything claimed arrives.
     */
    @Test
    @Timeout(30)
    void theWindowBackPressuresSendersBeforeTheRingIsFull() {
        try (SmpJob job = SmpJob.open(3, rank -> Map.of(SmpConduit.RING_BYTES, "64K", SmpConduit.RING_WINDOW, "4K"))) {
            final SmpConduit c0 = job.conduits[0];
            final byte[] frame = Frames.pattern(3, 100);
            final int committed = fillUntilRefused(c0, 2, frame, 33);
            assertEquals(32, committed, "4 KiB of 128-byte records");
            final Claim claim = new Claim();
            assertEquals(NO_ROOM, job.conduits[1].claim(claim, 2, REQUEST, frame.length), "every sender's bytes count");
            final List<Frame> got = new Recorder().drain(job.conduits[2]);
            assertEquals(committed, got.size());
            for (Frame f : got) {
                assertArrayEquals(frame, f.bytes());
            }
            Frames.send(job.conduits[1], 2, REQUEST, frame);
            assertArrayEquals(frame, new Recorder().drain(job.conduits[2]).get(0).bytes());
        }
    }

    @Test
    @Timeout(30)
    void misuseThrowsNamingTheValueAndLimitAndClaimsNothing() {
        try (SmpJob job = SmpJob.open(2, rank -> RING_64K)) {
            final SmpConduit c = job.conduits[0];
            final Claim claim = new Claim();
            assertMessage(() -> c.claim(claim, -1, REQUEST, 8), "-1", "[0, 2)");
            assertMessage(() -> c.claim(claim, 2, REQUEST, 8), "2", "[0, 2)");
            assertMessage(() -> c.claim(claim, 1, 2, 8), "channel 2");
            assertMessage(() -> c.claim(claim, 1, -1, 8), "channel -1");
            assertMessage(() -> c.claim(claim, 1, REQUEST, 8193), "8193", "8192", "maxFrameLength");
            assertMessage(() -> c.claim(claim, 1, REPLY, -1), "-1", "8192");
            final Claim bogus = new Claim();
            bogus.set(null, 8, 8, 1, 3, 0);
            assertMessage(() -> c.commit(bogus), "channel 3");
            bogus.set(null, 8, 8, -4, REQUEST, 0);
            assertMessage(() -> c.abort(bogus), "-4");
            final byte[] frame = {42};
            Frames.send(c, 1, REQUEST, frame);
            Frames.send(c, 1, REPLY, frame);
            // a claim left behind by a throwing call would hold back every later frame
            assertEquals(2, new Recorder().drain(job.conduits[1]).size());
        }
    }

    @Test
    @Timeout(30)
    void anAbortedClaimIsSkippedAndLaterFramesArrive() {
        try (SmpJob job = SmpJob.open(2)) {
            final SmpConduit c = job.conduits[0];
            final Claim aborted = new Claim();
            final Claim kept = new Claim();
            assertEquals(OK, c.claim(aborted, 1, REQUEST, 100));
            assertEquals(OK, c.claim(kept, 1, REQUEST, 3));
            kept.buffer().putBytes(kept.offset(), new byte[] {1, 2, 3});
            c.abort(aborted);
            c.commit(kept);
            final List<Frame> got = new Recorder().drain(job.conduits[1]);
            assertEquals(1, got.size());
            assertArrayEquals(new byte[] {1, 2, 3}, got.getFirst().bytes());
        }
    }

    /**
     * Two ranks fill rank 0's request ring from their own threads, retrying on back-pressure, while rank 0 polls: every
     * frame arrives once, each sender's in order, byte-exact.
     */
    @Test
    @Timeout(30)
    void concurrentSendersBackPressuredByAPollingTarget() {
        final int perSender = 50_000;
        try (SmpJob job = SmpJob.open(3, rank -> RING_64K)) {
            final List<Integer> delivered = job.onEachRank(rank -> {
                final SmpConduit c = job.conduits[rank];
                if (rank == 0) {
                    final int[] next = new int[3];
                    final int[] bad = new int[1];
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    int total = 0;
                    while (total < 2 * perSender && System.nanoTime() < deadline) {
                        total += c.poll((channel, buffer, offset, length) -> {
                            final int src = buffer.getInt(offset);
                            final int seq = buffer.getInt(offset + 4);
                            if (seq != next[src]++ || length != 8 + seq % 200 || (length > 8
                                && (buffer.getByte(offset + 8) != (byte) seq
                                || buffer.getByte(offset + length - 1) != (byte) seq))) {
                                bad[0]++;
                            }
                        }, ALL_CHANNELS, 100);
                    }
                    assertEquals(0, bad[0], "frames out of order or corrupted");
                    return total;
                }
                final Claim claim = new Claim();
                for (int seq = 0; seq < perSender; seq++) {
                    final int length = 8 + seq % 200;
                    while (c.claim(claim, 0, REQUEST, length) == NO_ROOM) {
                        Thread.onSpinWait();
                    }
                    final AtomicBuffer b = claim.buffer();
                    final int at = claim.offset();
                    b.putInt(at, rank);
                    b.putInt(at + 4, seq);
                    b.setMemory(at + 8, length - 8, (byte) seq);
                    c.commit(claim);
                }
                return perSender;
            });
            assertEquals(List.of(2 * perSender, perSender, perSender), delivered);
        }
    }

    @Test
    @Timeout(30)
    void ringBytesMustBeAPowerOfTwoInRange() {
        final String job = SmpJob.newJobId();
        assertMessage(SmpJob.openFailures(job, 1, rank -> Map.of(SmpConduit.RING_BYTES, "100000"))[0],
            "GEX_SMP_RING_BYTES=100000", "power of two");
        assertMessage(SmpJob.openFailures(job, 1, rank -> Map.of(SmpConduit.RING_BYTES, "32K"))[0],
            "GEX_SMP_RING_BYTES=32768", "65536");
        assertMessage(SmpJob.openFailures(job, 1, rank -> Map.of(SmpConduit.RING_BYTES, "512M"))[0],
            "GEX_SMP_RING_BYTES=536870912", "268435456");
        assertEquals(List.of(), SmpJob.filesOf(job));
        assertMessage(SmpJob.openFailures(job, 1, rank -> Map.of(SmpConduit.RING_WINDOW, "512"))[0],
            "GEX_SMP_RING_WINDOW=512", "1024");
        try (SmpJob ok = SmpJob.open(1, rank -> Map.of(SmpConduit.RING_BYTES, "128K"))) {
            assertEquals(16384, ok.conduits[0].capabilities().maxFrameLength());
        }
    }

    @Test
    @Timeout(30)
    void ringBytesMustBeTheSameOnEveryRank() {
        final String job = SmpJob.newJobId();
        final Throwable[] failures = SmpJob.openFailures(job, 3,
            rank -> Map.of(SmpConduit.RING_BYTES, rank == 2 ? "128K" : "64K"));
        for (Throwable failure : failures) {
            assertMessage(failure, "GEX_SMP_RING_BYTES must be the same on every rank", "131072", "65536");
        }
        assertEquals(List.of(), SmpJob.filesOf(job));
    }

    /** Sends {@code frame} requests from {@code c} to {@code target} until refused. @return how many went */
    private static int fillUntilRefused(SmpConduit c, int target, byte[] frame, int atMost) {
        final Claim claim = new Claim();
        int committed = 0;
        while (c.claim(claim, target, REQUEST, frame.length) != NO_ROOM) {
            claim.buffer().putBytes(claim.offset(), frame);
            c.commit(claim);
            committed++;
            assertTrue(committed < atMost, "the ring took " + atMost + " frames of " + frame.length + " bytes");
        }
        return committed;
    }

    private static void assertMessage(Executable call, String... parts) {
        assertMessage(assertThrows(IllegalArgumentException.class, call), parts);
    }

    private static void assertMessage(Throwable failure, String... parts) {
        assertTrue(failure instanceof IllegalArgumentException, "expected IllegalArgumentException, got " + failure);
        for (String part : parts) {
            assertTrue(failure.getMessage().contains(part), "'" + failure.getMessage() + "' lacks '" + part + "'");
        }
    }
}
