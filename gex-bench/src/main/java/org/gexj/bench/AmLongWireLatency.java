package org.gexj.bench;

import org.gexj.Client;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * AM Long round trips (a Long request answered by a Long reply of the same size) over emu with a modelled wire
 * latency ({@code GEX_EMU_LATENCY_US}), for each Long protocol: the gain of target-side reassembly over put-sync-send
 * where the wire, not software, dominates. Prints, per latency L, size and protocol, the median round trip of each
 * run, their median, and the model's prediction: the protocol's one-way wire crossings times L (put-sync-send 6: put,
 * its completion back, envelope, each way; reassembly and packed 2) plus the same protocol's median at L = 0 (the
 * software and copies). A main, not JMH, so that each round trip is one sample and a run's median is exact.
 *
 * <p>Each run opens a fresh 2-rank job per configuration; runs go over every configuration in turn, so a burst of
 * load on a shared machine lands in one run of several configurations, not in all runs of one. See the module's
 * README for the command line.
 */
public final class AmLongWireLatency {
    private static final int PING = 130;
    private static final int PONG = 131;
    private static final long SEGMENT = 1 << 20;
    private static final String[] PROTOCOLS = {"packed", "putsyncsend", "reassembly"};
    /** One-way wire crossings of a round trip, by protocol, in the order of {@link #PROTOCOLS}. */
    private static final int[] CROSSINGS = {2, 6, 2};

    private AmLongWireLatency() {
    }

    /**
     * @param args optional: runs (default 3), measured round trips per run (1000), warm-up round trips (500),
     *             latencies in us, comma separated (0,5,20,50,100), sizes in bytes (4096,65536)
     */
    public static void main(String[] args) throws Exception {
        final int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        final int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 500;
        final int[] latencies = ints(args.length > 3 ? args[3] : "0,5,20,50,100");
        final int[] sizes = ints(args.length > 4 ? args[4] : "4096,65536");
        if (runs < 1 || rounds < 1 || warmup < 0 || latencies[0] != 0) {
            throw new IllegalArgumentException("runs " + runs + " and rounds " + rounds + " must be >= 1, warm-up "
                + warmup + " >= 0, and the first latency 0 (the model's base), not " + latencies[0]);
        }
        // one untimed pass first, so that no run's first configurations are timed while the JIT still compiles
        for (String protocol : PROTOCOLS) {
            for (int bytes : sizes) {
                medianRoundTripUs(protocol, 0, bytes, 4 * warmup, 1);
            }
        }
        // [latency][size][protocol][run], microseconds
        final double[][][][] medians = new double[latencies.length][sizes.length][PROTOCOLS.length][runs];
        for (int run = 0; run < runs; run++) {
            for (int l = 0; l < latencies.length; l++) {
                for (int s = 0; s < sizes.length; s++) {
                    for (int p = 0; p < PROTOCOLS.length; p++) {
                        medians[l][s][p][run] = medianRoundTripUs(PROTOCOLS[p], latencies[l], sizes[s], warmup,
                            rounds);
                        System.err.printf(Locale.ROOT, "run %d L=%d us %d B %s: %.1f us%n", run + 1, latencies[l],
                            sizes[s], PROTOCOLS[p], medians[l][s][p][run]);
                    }
                }
            }
        }
        System.out.printf(Locale.ROOT, "AM Long round trip over emu, median of %d round trips per run, %d runs%n",
            rounds, runs);
        System.out.printf(Locale.ROOT, "%6s %7s %-12s %-26s %9s %9s%n", "L us", "bytes", "protocol", "run medians us",
            "median us", "model us");
        for (int l = 0; l < latencies.length; l++) {
            for (int s = 0; s < sizes.length; s++) {
                for (int p = 0; p < PROTOCOLS.length; p++) {
                    final double[] m = medians[l][s][p];
                    final StringBuilder each = new StringBuilder();
                    for (double v : m) {
                        each.append(String.format(Locale.ROOT, "%.1f ", v));
                    }
                    final double model = CROSSINGS[p] * latencies[l] + median(medians[0][s][p]);
                    System.out.printf(Locale.ROOT, "%6d %7d %-12s %-26s %9.1f %9.1f%n", latencies[l], sizes[s],
                        PROTOCOLS[p], each.toString().trim(), median(m), model);
                }
            }
        }
    }

    /** One fresh job: warm-up round trips, then the median of {@code rounds} timed ones, in microseconds. */
    private static double medianRoundTripUs(String protocol, int latencyUs, int bytes, int warmup, int rounds)
        throws Exception {
        // every size goes the chosen way: packed needs a frame that holds it, the others a packed limit below it;
        // no random hold-back (GEX_EMU_DELAY=0), so that the wire is the only delay
        final Map<String, String> env = Map.of("GEX_CONDUIT", "emu", "GEX_EMU_DELAY", "0", "GEX_EMU_FRAME", "131072",
            "GEX_EMU_LATENCY_US", Integer.toString(latencyUs), "GEX_AMLONG_PROTOCOL", protocol,
            "GEX_AMLONG_PACKED_MAX", protocol.equals("packed") ? "65536" : "0");
        final int[] replies = new int[1];
        final long[] times = new long[rounds];
        final TwoRankJob job = new TwoRankJob(env, c -> {
            final MemorySegment segment = c.attachSegment(SEGMENT).memory();
            final Am a = Am.of(c);
            a.register(PING, AmHandler.longRequest(0,
                (t, p, args) -> t.replyLong(PONG, segment, p.segmentOffset(), p.length(), SEGMENT / 2, Lc.NOW)));
            a.register(PONG, AmHandler.longReply(0, (t, p, args) -> replies[0]++));
        });
        try {
            final Client client = job.client;
            final Am am = Am.of(client);
            if (!am.longProtocol(bytes).equals(protocol)) {
                throw new IllegalStateException(bytes + " B Longs go " + am.longProtocol(bytes) + ", not " + protocol);
            }
            final MemorySegment source = Arena.ofShared().allocate(SEGMENT, 4096);
            for (int i = 0; i < warmup + rounds; i++) {
                final int expected = replies[0] + 1;
                final long start = System.nanoTime();
                am.requestLong(1, PING, source, 0, bytes, 0, Lc.NOW);
                while (replies[0] != expected) {
                    client.poll();
                }
                if (i >= warmup) {
                    times[i - warmup] = System.nanoTime() - start;
                }
            }
        } finally {
            job.close();
        }
        Arrays.sort(times);
        return times[rounds / 2] / 1000.0;
    }

    private static double median(double[] values) {
        final double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static int[] ints(String list) {
        return Arrays.stream(list.split(",")).mapToInt(Integer::parseInt).toArray();
    }
}
