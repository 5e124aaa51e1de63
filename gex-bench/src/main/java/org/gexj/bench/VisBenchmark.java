package org.gexj.bench;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Lc;
import org.gexj.rma.Rma;
import org.gexj.rma.Vis;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
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
 * Vector puts of {@code pieces} chunks of {@code chunk} bytes each into an smp peer's segment (testvisperf's VECTOR PUT
 * at density 100 %), ten implicit-handle calls then {@code nbiWait}, as a testvisperf cell of 10 iterations; and a
 * contiguous put of the same bytes for comparison. The time is per call.
 *
 * <p>JMH inlines the call into its loop and C2 then hoists the checks of ten identical calls, which an application's
 * varying calls (and testvisperf's, and GASNet's library calls) do not get; to time the call as one, keep it out of
 * line:
 * <pre>bin/gexbench VisBenchmark -prof gc
 *bin/gexbench VisBenchmark -jvmArgsAppend "--enable-native-access=ALL-UNNAMED --add-opens \
 *  java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED \
 *  -Dagrona.disable.bounds.checks=true -XX:CompileCommand=quiet \
 *  -XX:CompileCommand=dontinline,org.gexj.rma.Vis::putVectorNbi -XX:CompileCommand=dontinline,org.gexj.rma.Rma::putNbi"
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED",
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED",
    "-Dagrona.disable.bounds.checks=true"})
public class VisBenchmark {
    private static final long SEGMENT = 4 << 20;
    private static final int CALLS = 10;

    @Param({"64"})
    public int chunk;
    @Param({"1", "2", "128"})
    public int pieces;

    private TwoRankJob job;
    private Client client;
    private Rma rma;
    private Vis vis;
    private MemorySegment source;
    private long[] offsets;
    private long[] lengths;

    @Setup(Level.Trial)
    public void start() throws Exception {
        source = Arena.ofShared().allocate(SEGMENT, 4096);
        job = new TwoRankJob(c -> c.attachSegment(SEGMENT));
        client = job.client;
        rma = Rma.of(client);
        vis = Vis.of(client);
        offsets = new long[pieces];
        lengths = new long[pieces];
        for (int i = 0; i < pieces; i++) {
            offsets[i] = (long) i * chunk;
            lengths[i] = chunk;
        }
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        job.close();
    }

    /** Ten vector puts and their wait: the time per call. */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void vectorPutNbi() {
        for (int i = 0; i < CALLS; i++) {
            vis.putVectorNbi(1, pieces, offsets, lengths, source, pieces, offsets, lengths);
        }
        client.nbiWait(Ec.ALL);
    }

    /** Ten contiguous puts of the same bytes and their wait. */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void putNbi() {
        for (int i = 0; i < CALLS; i++) {
            rma.putNbi(1, 0, source, 0, (long) chunk * pieces, Lc.NOW);
        }
        client.nbiWait(Ec.ALL);
    }
}
