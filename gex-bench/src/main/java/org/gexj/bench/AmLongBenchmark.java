package org.gexj.bench;

import org.gexj.Client;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The per-message cost of each AM Long protocol on the emulated RDMA conduit (emu): a Long request answered by a Long
 * reply of the same size, packed in the envelope, put-sync-send, or by target-side reassembly. emu moves data by
 * memory copies between threads, so this measures the engine's own work (matching, credits, completions), not a
 * network; with {@code -prof gc}, the bytes allocated per round trip.
 *
 * <pre>GEX_CLASSPATH=gex-testkit/target/classes bin/gexbench AmLongBenchmark -prof gc</pre>
 * (emu is a test conduit, in gex-testkit: it is not in the distribution that bin/gexbench runs).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED",
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED",
    "-Dagrona.disable.bounds.checks=true"})
public class AmLongBenchmark {
    private static final int PING = 130;
    private static final int PONG = 131;
    private static final long SEGMENT = 1 << 20;

    @Param({"packed", "putsyncsend", "reassembly"})
    public String protocol;

    @Param({"1024", "4096", "16384"})
    public int bytes;

    private TwoRankJob job;
    private Client client;
    private Am am;
    private MemorySegment source;
    private int replies;

    @Setup(Level.Trial)
    public void start() throws Exception {
        source = Arena.ofShared().allocate(SEGMENT, 4096);
        // every size goes the chosen way: packed needs a frame that holds it, the others a packed limit below it
        final Map<String, String> env = Map.of("GEX_CONDUIT", "emu", "GEX_EMU_DELAY", "0", "GEX_EMU_FRAME", "65536",
            "GEX_AMLONG_PROTOCOL", protocol, "GEX_AMLONG_PACKED_MAX", protocol.equals("packed") ? "32768" : "0");
        job = new TwoRankJob(env, c -> {
            final MemorySegment segment = c.attachSegment(SEGMENT).memory();
            final Am a = Am.of(c);
            a.register(PING, AmHandler.longRequest(0,
                (t, p, args) -> t.replyLong(PONG, segment, p.segmentOffset(), p.length(), SEGMENT / 2, Lc.NOW)));
            a.register(PONG, AmHandler.longReply(0, (t, p, args) -> replies++));
        });
        client = job.client;
        am = Am.of(client);
    }

    @TearDown(Level.Trial)
    public void stop() throws InterruptedException {
        job.close();
    }

    @Benchmark
    public int longRoundTrip() {
        final int expected = replies + 1;
        am.requestLong(1, PING, source, 0, bytes, 0, Lc.NOW);
        while (replies != expected) {
            client.poll();
        }
        return replies;
    }
}
