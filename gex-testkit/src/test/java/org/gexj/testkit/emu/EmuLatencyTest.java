package org.gexj.testkit.emu;

import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.RmaTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Emu's wire latency ({@code GEX_EMU_LATENCY_US}) on the conduit alone: a frame or an RMA operation is seen by its
 * target no earlier than L after it was sent, a completion by its initiator no earlier than 2 L after the call (the
 * acknowledgement's way back), a put-with-immediate's report at its target no earlier than L; and what is still on
 * the wire when a rank closes is handed back as without latency. Only lower bounds are asserted: a busy machine
 * may make anything later, never earlier.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EmuLatencyTest {
    /** Large against the clock's resolution, small for the test's run time. */
    private static final long LATENCY_US = 20_000;
    private static final long L = TimeUnit.MICROSECONDS.toNanos(LATENCY_US);
    private static final Map<String, String> SETTINGS = Map.of("GEX_EMU_LATENCY_US", Long.toString(LATENCY_US));

    /** Polls {@code conduit} until {@code done}, at most 10 s. @return the time it was first seen done */
    private static long pollUntil(Conduit conduit, EmuConduitTest.Recorder listener, BooleanSupplier done) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "nothing delivered in 10 s: " + listener.events);
            conduit.poll(listener, Conduit.ALL_CHANNELS, 64);
        }
        return System.nanoTime();
    }

    @Test
    void aFrameArrivesNoEarlierThanOneLatencyAfterItsCommit() {
        try (EmuTestJob job = EmuTestJob.open(2, SETTINGS)) {
            final Claim claim = new Claim();
            final EmuConduitTest.Recorder got = new EmuConduitTest.Recorder();
            for (int channel : new int[] {Conduit.REQUEST, Conduit.REPLY}) {
                assertEquals(Conduit.OK, job.rank(0).claim(claim, 1, channel, 64));
                claim.buffer().putInt(claim.offset(), channel);
                final long sent = System.nanoTime();
                job.rank(0).commit(claim);
                final int before = got.events.size();
                final long seen = pollUntil(job.rank(1), got, () -> got.events.size() > before);
                assertTrue(seen - sent >= L, "frame on channel " + channel + " after " + (seen - sent) + " ns");
            }
            assertEquals(List.of("request 0 of 64", "reply 1 of 64"), got.events);
            assertEquals(0, job.rank(0).framesInUse(1, Conduit.REQUEST), "the credit came back");
        }
    }

    /** The put lands at L, its completion reaches the initiator at 2 L, after the landing; a get the same. */
    @Test
    void aPutOrGetLandsAfterOneLatencyAndCompletesAfterARoundTrip() throws InterruptedException {
        try (EmuTestJob job = EmuTestJob.open(2, SETTINGS)) {
            final MemorySegment target = EmuConduitTest.attach(job);
            final MemorySegment src = Arena.ofShared().allocate(64);
            src.fill((byte) 5);
            final RmaTransport rma = job.rank(0).rma();
            final EmuConduitTest.Recorder initiator = new EmuConduitTest.Recorder();
            final EmuConduitTest.Recorder landing = new EmuConduitTest.Recorder();
            long sent = System.nanoTime();
            assertEquals(Conduit.OK, rma.put(1, 0, src, 0, 64, 1));
            // both ranks from one thread: the completion must not come before the data is in place
            long landed = 0;
            final long deadline = sent + TimeUnit.SECONDS.toNanos(10);
            while (initiator.events.isEmpty()) {
                assertTrue(System.nanoTime() < deadline, "put not completed in 10 s");
                job.rank(1).poll(landing, Conduit.ALL_CHANNELS, 64);
                if (landed == 0 && target.get(ValueLayout.JAVA_BYTE, 63) == 5) {
                    landed = System.nanoTime();
                }
                job.rank(0).poll(initiator, Conduit.ALL_CHANNELS, 64);
            }
            final long done = System.nanoTime();
            assertTrue(landed != 0, "completed before the data landed");
            assertTrue(landed - sent >= L, "landed after " + (landed - sent) + " ns");
            assertTrue(done - sent >= 2 * L, "completed after " + (done - sent) + " ns");
            assertEquals(List.of("done 1 status 0"), initiator.events);

            final MemorySegment dst = Arena.ofShared().allocate(64);
            sent = System.nanoTime();
            assertEquals(Conduit.OK, rma.get(dst, 0, 1, 0, 64, 2));
            final long read = pollUntil(job.rank(1), landing, () -> dst.get(ValueLayout.JAVA_BYTE, 63) == 5);
            assertTrue(read - sent >= L, "get served after " + (read - sent) + " ns");
            final long got = pollUntil(job.rank(0), initiator, () -> initiator.events.size() == 2);
            assertTrue(got - sent >= 2 * L, "get completed after " + (got - sent) + " ns");
            assertEquals(List.of("done 1 status 0", "done 2 status 0"), initiator.events);
        }
    }

    @Test
    void aPutWithImmediateIsReportedAfterOneLatencyAndCompletesAfterARoundTrip() throws InterruptedException {
        try (EmuTestJob job = EmuTestJob.open(2, SETTINGS)) {
            EmuConduitTest.attach(job);
            final MemorySegment src = Arena.ofShared().allocate(8);
            final long sent = System.nanoTime();
            assertEquals(Conduit.OK, job.rank(0).rma().putWithImmediate(1, 0, src, 0, 8, 0x77, 4));
            final EmuConduitTest.Recorder landing = new EmuConduitTest.Recorder();
            final long reported = pollUntil(job.rank(1), landing, () -> !landing.events.isEmpty());
            assertTrue(reported - sent >= L, "reported after " + (reported - sent) + " ns");
            assertEquals(List.of("write from 0 imm 77"), landing.events);
            final EmuConduitTest.Recorder initiator = new EmuConduitTest.Recorder();
            final long done = pollUntil(job.rank(0), initiator, () -> !initiator.events.isEmpty());
            assertTrue(done - sent >= 2 * L, "completed after " + (done - sent) + " ns");
            assertEquals(List.of("done 4 status 0"), initiator.events);
        }
    }

    /** A rank that closes while a put and a frame to it are on the wire: the put fails, the frame's credit returns. */
    @Test
    void whatIsOnTheWireToAClosingRankIsHandedBack() throws InterruptedException {
        // half a second: the items are still on the wire at rank 1's poll even on a busy machine
        try (EmuTestJob job = EmuTestJob.open(2, Map.of("GEX_EMU_LATENCY_US", "500000"))) {
            EmuConduitTest.attach(job);
            final MemorySegment src = Arena.ofShared().allocate(8);
            assertEquals(Conduit.OK, job.rank(0).rma().put(1, 0, src, 0, 8, 9));
            final Claim claim = new Claim();
            assertEquals(Conduit.OK, job.rank(0).claim(claim, 1, Conduit.REQUEST, 8));
            job.rank(0).commit(claim);
            job.rank(1).poll(new EmuConduitTest.Recorder(), Conduit.ALL_CHANNELS, 64); // both still on the wire
            job.rank(1).close();
            assertEquals(0, job.rank(0).framesInUse(1, Conduit.REQUEST), "the frame's credit came back");
            final EmuConduitTest.Recorder initiator = new EmuConduitTest.Recorder();
            pollUntil(job.rank(0), initiator, () -> !initiator.events.isEmpty());
            assertEquals(List.of("done 9 status " + RmaTransport.PEER_CLOSED), initiator.events);
        }
    }
}
