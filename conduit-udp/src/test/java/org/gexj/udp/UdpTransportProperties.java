package org.gexj.udp;

import org.agrona.DirectBuffer;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.gexj.udp.UdpSettings.Checksum.AUTO;
import static org.gexj.udp.UdpSettings.Checksum.HEADER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * The udp conduit's protocol ({@link UdpTransportAgent}) over a {@link LossyNetwork}, for any seed: two ranks send
 * each other frames of random sizes (most of several fragments) on both channels, and every frame arrives exactly
 * once, in order per (source, channel), with its bytes intact, also when polls take replies only; and the counters
 * account for the faults injected: each corrupted or truncated datagram is one drop by cause, each forged one a
 * foreign-job or unknown-peer drop, each duplicated data datagram at least one duplicate, each dropped data datagram at
 * least one retransmission.
 */
class UdpTransportProperties {
    private static final int RANKS = 2;
    private static final int FRAMES = 60;
    private static final long COOKIE = 0x1234_5678_9ABC_DEF0L;
    private static final LossyNetwork.Faults FAULTS =
        new LossyNetwork.Faults(0.08, 0.05, 0.04, 0.04, 0.10, 0.02, 0.02);

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void everyFrameArrivesOnceInOrderIntactAndTheCountersAccountForEveryFault() {
        qt().withExamples(100).withShrinkCycles(20).forAll(longs().all())
            .checkAssert(seed -> exchange(seed, FAULTS, 200_000, AUTO, AUTO));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void ranksThatChecksumOnlyTheirHeadersInteroperateAndStillRepairEveryOtherFault() {
        // rank 0 sends with GEX_UDP_CHECKSUM=header, rank 1 with the default (auto); no payload corruption is
        // injected, as header mode leaves that to UDP's checksum (UdpHeaderFlyweightTest shows what each mode catches)
        final LossyNetwork.Faults noCorruption = new LossyNetwork.Faults(0.08, 0.05, 0, 0.04, 0.10, 0.02, 0.02);
        qt().withExamples(30).withShrinkCycles(10).forAll(longs().all())
            .checkAssert(seed -> exchange(seed, noCorruption, 200_000, HEADER, AUTO));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aCleanNetworkNeedsNoRepair() {
        // timeouts far above any poll's duration: only a loss could make a retransmission
        final List<Map<String, Long>> counters = exchange(42, new LossyNetwork.Faults(0, 0, 0, 0, 0, 0, 0),
            1_000_000_000L, AUTO, AUTO);
        for (Map<String, Long> c : counters) {
            assertEquals(0L, c.get("udp.retransmitted"), c.toString());
            assertEquals(0L, c.get("udp.duplicates"), c.toString());
        }
    }

    /**
     * {@code checksum[r]}: rank r's {@code GEX_UDP_CHECKSUM}. The lossy network is a link, not this host, so
     * {@code auto} checksums whole datagrams on it.
     */
    private static List<Map<String, Long>> exchange(long seed, LossyNetwork.Faults faults, long rtoNanos,
                                                    UdpSettings.Checksum... checksum) {
        final LossyNetwork net = new LossyNetwork(seed, faults, RANKS, COOKIE);
        // small datagrams and window: frames fragment, the window fills, and timeouts fire within milliseconds
        final UdpSettings[] settings = new UdpSettings[RANKS];
        for (int r = 0; r < RANKS; r++) {
            settings[r] = new UdpSettings(8, 1024, 1 << 20, 1 << 20, 1 << 20, rtoNanos, Math.max(rtoNanos, 5_000_000),
                10_000, 30_000_000_000L, 0, "auto", null, checksum[r]);
        }
        final List<String> failures = new ArrayList<>();
        final UdpTransportAgent[] agents = new UdpTransportAgent[RANKS];
        final Receiver[] receivers = new Receiver[RANKS];
        for (int r = 0; r < RANKS; r++) {
            final int rank = r;
            agents[r] = new UdpTransportAgent(r, RANKS, COOKIE, settings[r], net.port(r),
                (peer, reason) -> failures.add("rank " + rank + ": " + reason));
            receivers[r] = new Receiver(seed, r);
        }
        final SplittableRandom sizes = new SplittableRandom(seed);
        final int[][] lengths = new int[RANKS * 2][FRAMES];
        for (int[] l : lengths) {
            for (int i = 0; i < FRAMES; i++) {
                l[i] = sizes.nextInt(10) == 0 ? 0 : sizes.nextInt(6000);
            }
        }
        final int[] sent = new int[RANKS * 2];
        final Claim claim = new Claim();
        final SplittableRandom masks = new SplittableRandom(~seed);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        boolean done = false;
        while (!done) {
            if (System.nanoTime() > deadline) {
                fail("seed " + seed + ": not done in 30 s; sent " + java.util.Arrays.toString(sent) + ", received "
                    + receivers[0] + " / " + receivers[1] + "; " + agents[0].state() + " / " + agents[1].state()
                    + "; counters " + agents[0].snapshot() + " / " + agents[1].snapshot());
            }
            for (int r = 0; r < RANKS; r++) {
                for (int c = 0; c < 2; c++) {
                    final int stream = 2 * r + c;
                    final int peer = 1 - r;
                    while (sent[stream] < FRAMES) {
                        final int length = lengths[stream][sent[stream]];
                        if (agents[r].claim(claim, peer, c, length) != Conduit.OK) {
                            break;
                        }
                        for (int i = 0; i < length; i++) {
                            claim.buffer().putByte(claim.offset() + i, byteAt(seed, r, c, sent[stream], i));
                        }
                        agents[r].commit(claim);
                        sent[stream]++;
                    }
                }
                // a third of the polls take replies only, as a handler waiting for room does: requests wait
                agents[r].poll(receivers[r], masks.nextInt(3) == 0 ? 1 << Conduit.REPLY : Conduit.ALL_CHANNELS,
                    1 + masks.nextInt(16));
            }
            assertTrue(failures.isEmpty(), "seed " + seed + ": " + failures);
            done = true;
            for (int r = 0; r < RANKS; r++) {
                done &= receivers[r].count[0] == FRAMES && receivers[r].count[1] == FRAMES && agents[r].settled();
            }
        }
        // what is still on the wire (late acknowledgements, damaged copies) is received and counted too
        for (int i = 0; i < 1000 && !net.idle(); i++) {
            for (int r = 0; r < RANKS; r++) {
                agents[r].poll(receivers[r], Conduit.ALL_CHANNELS, 16);
            }
        }
        assertTrue(net.idle(), "seed " + seed + ": the network did not drain");
        final List<Map<String, Long>> counters = new ArrayList<>();
        long dropsByCause = 0;
        long foreign = 0;
        long unknown = 0;
        long duplicates = 0;
        long retransmitted = 0;
        for (int r = 0; r < RANKS; r++) {
            assertEquals("", receivers[r].errors.toString(), "seed " + seed);
            final Map<String, Long> c = agents[r].snapshot();
            counters.add(c);
            dropsByCause += c.get("udp.dropped.truncated") + c.get("udp.dropped.version")
                + c.get("udp.dropped.checksum") + c.get("udp.dropped.malformed");
            foreign += c.get("udp.dropped.foreign-job");
            unknown += c.get("udp.dropped.unknown-peer");
            duplicates += c.get("udp.duplicates");
            retransmitted += c.get("udp.retransmitted");
            assertEquals(0L, c.get("udp.dropped.out-of-window"), "seed " + seed + ": " + c);
            assertEquals((long) 2 * FRAMES, c.get("udp.frames.delivered"), "seed " + seed + ": " + c);
            agents[r].close();
        }
        final String context = "seed " + seed + ": " + counters;
        assertEquals(net.corruptedOrTruncated(), dropsByCause, "every corrupted or truncated datagram dropped once, "
            + context);
        assertEquals(net.foreign, foreign, context);
        assertEquals(net.unknownPeer, unknown, context);
        assertTrue(duplicates >= net.duplicatedData, "duplicates " + duplicates + " < injected "
            + net.duplicatedData + ", " + context);
        assertTrue(retransmitted >= net.droppedData, "retransmissions " + retransmitted + " < data drops "
            + net.droppedData + ", " + context);
        return counters;
    }

    private static byte byteAt(long seed, int source, int channel, int frame, int i) {
        long x = seed ^ (source * 0x9E3779B97F4A7C15L) ^ (channel * 0xC2B2AE3D27D4EB4FL) ^ (frame * 0x165667B19E3779F9L)
            ^ (i * 0x27D4EB2F165667C5L);
        x ^= x >>> 29;
        x *= 0xBF58476D1CE4E5B9L;
        return (byte) (x ^ (x >>> 32));
    }

    /** Checks each frame against what its sender wrote: length, bytes, order. */
    private static final class Receiver implements ConduitListener {
        private final long seed;
        private final int rank;
        private final int[] count = new int[2];
        private final StringBuilder errors = new StringBuilder();

        Receiver(long seed, int rank) {
            this.seed = seed;
            this.rank = rank;
        }

        @Override
        public void onFrame(int channel, DirectBuffer buffer, int offset, int length) {
            final int source = 1 - rank;
            final int frame = count[channel]++;
            final SplittableRandom sizes = new SplittableRandom(seed);
            int expected = -1;
            // the sizes were drawn stream by stream, in order: replay them
            for (int stream = 0; stream <= 2 * source + channel; stream++) {
                for (int i = 0; i < FRAMES; i++) {
                    final int l = sizes.nextInt(10) == 0 ? 0 : sizes.nextInt(6000);
                    if (stream == 2 * source + channel && i == frame) {
                        expected = l;
                    }
                }
            }
            if (frame >= FRAMES || length != expected) {
                errors.append("frame ").append(frame).append(" on channel ").append(channel).append(": length ")
                    .append(length).append(", expected ").append(expected).append('\n');
                return;
            }
            for (int i = 0; i < length; i++) {
                if (buffer.getByte(offset + i) != byteAt(seed, source, channel, frame, i)) {
                    errors.append("frame ").append(frame).append(" on channel ").append(channel)
                        .append(": byte ").append(i).append(" differs\n");
                    return;
                }
            }
        }

        @Override
        public String toString() {
            return "rank " + rank + " got " + count[0] + " requests, " + count[1] + " replies";
        }
    }
}
