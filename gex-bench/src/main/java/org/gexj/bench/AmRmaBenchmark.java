package org.gexj.bench;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.rma.Rma;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * Round-trip latency of AM Short/Medium/Long request-reply and of put/get (blocking, NBI and NB, each waited for)
 * between two smp ranks, and with
 * {@code -prof gc} the bytes allocated per operation ({@code gc.alloc.rate.norm}, both ranks' threads): the data
 * path is meant to allocate nothing.
 *
 * <pre>bin/gexbench AmRmaBenchmark -prof gc</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED",
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED",
    "-Dagrona.disable.bounds.checks=true"})
public class AmRmaBenchmark {
    private static final int PING_SHORT = 130;
    private static final int PONG_SHORT = 131;
    private static final int PING_MEDIUM = 132;
    private static final int PONG_MEDIUM = 133;
    private static final int PING_LONG = 134;
    private static final int PONG_LONG = 135;
    private static final long SEGMENT = 1 << 20;

    /** Payload sizes: a state of their own so that benchmarks without payload run once. */
    @State(Scope.Benchmark)
    public static class Size {
        @Param({"8", "4096"})
        public int bytes;
    }

    private TwoRankJob job;
    private Client client;
    private Am am;
    private Rma rma;
    private MemorySegment source;
    /** Replies seen by rank 0 (rank 1 never gets one); only the polling thread writes it. */
    private int replies;

    @Setup(Level.Trial)
    public void start() throws Exception {
        source = Arena.ofShared().allocate(SEGMENT, 4096);
        job = new TwoRankJob(c -> {
            final MemorySegment segment = c.attachSegment(SEGMENT).memory();
            final Am a = Am.of(c);
            a.register(PING_SHORT, AmHandler.shortRequest(0, (t, args) -> t.replyShort(PONG_SHORT)));
            a.register(PING_MEDIUM, AmHandler.mediumRequest(0,
                (t, p, args) -> t.replyMedium(PONG_MEDIUM, segment, 0, p.length(), Lc.NOW)));
            a.register(PING_LONG, AmHandler.longRequest(0,
                (t, p, args) -> t.replyLong(PONG_LONG, segment, p.segmentOffset(), p.length(), 0, Lc.NOW)));
            // every rank registers every handler: a sender checks the index against its own table, as in SPMD code
            a.register(PONG_SHORT, AmHandler.shortReply(0, (t, args) -> replies++));
            a.register(PONG_MEDIUM, AmHandler.mediumReply(0, (t, p, args) -> replies++));
            a.register(PONG_LONG, AmHandler.longReply(0, (t, p, args) -> replies++));
        });
        client = job.client;
        am = Am.of(client);
        rma = Rma.of(client);
    }

    @TearDown(Level.Trial)
    public void stop() throws InterruptedException {
        job.close();
    }

    private int awaitReply() {
        final int expected = replies + 1;
        while (replies != expected) {
            client.poll();
        }
        return replies;
    }

    @Benchmark
    public int amShortRoundTrip() {
        am.requestShort(1, PING_SHORT);
        return awaitReply();
    }

    @Benchmark
    public int amMediumRoundTrip(Size size) {
        am.requestMedium(1, PING_MEDIUM, source, 0, size.bytes, Lc.NOW);
        return awaitReply();
    }

    @Benchmark
    public int amLongRoundTrip(Size size) {
        am.requestLong(1, PING_LONG, source, 0, size.bytes, 0, Lc.NOW);
        return awaitReply();
    }

    @Benchmark
    public void putBlocking(Size size) {
        rma.put(1, 0, source, 0, size.bytes);
    }

    @Benchmark
    public void getBlocking(Size size) {
        rma.get(source, 0, 1, 0, size.bytes);
    }

    @Benchmark
    public void putNbiWait(Size size) {
        rma.putNbi(1, 0, source, 0, size.bytes, Lc.NOW);
        client.nbiWait(Ec.PUT);
    }

    @Benchmark
    public void putNbWait(Size size) {
        rma.putNb(1, 0, source, 0, size.bytes, Lc.NOW).await();
    }

    @Benchmark
    public void getNbWait(Size size) {
        rma.getNb(source, 0, 1, 0, size.bytes).await();
    }
}
