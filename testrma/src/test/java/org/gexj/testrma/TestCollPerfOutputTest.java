package org.gexj.testrma;

import org.gexj.launch.InProcessJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * testcollperf prints GASNet's lines on smp, at 2 and 3 ranks: the header, the skipped-collectives note, then per
 * selected section (sync mode) a print_timer row per collective per size in GASNet's order, its time in C's
 * {@code %g}, and the section's PASS line; every result is verified (a wrong one ends the job with exit code 1, which
 * fails the job here); the scaling to a small segment; bad arguments print the usage.
 */
class TestCollPerfOutputTest {
    private static final String[] COLLECTIVES = {"broadcast", "broadcast_NB", "reduce", "reduce_NB", "reduce_all",
        "reduce_all_NB"};
    private static final Pattern TIME = Pattern.compile(" time: (\\d+(?:\\.\\d+)?(?:e[+-]\\d\\d+)?) us");

    private static List<String> run(int ranks, Map<String, String> env, int expectedExit, String... args) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        final Map<String, String> all = new HashMap<>(env);
        all.put("GEX_CONDUIT", "smp");
        InProcessJob.run(ranks, Duration.ofSeconds(60), all,
            client -> assertEquals(expectedExit, TestCollPerf.run(client, args, client.rank() == 0 ? out : sink)));
        final List<String> lines = List.of(bytes.toString(StandardCharsets.UTF_8).split("\n", -1));
        for (String line : lines) {
            assertFalse(line.contains("ERROR") || line.contains(" verification @ "), line);
        }
        return lines;
    }

    /** GASNet's "command line args" block, with its blank line. */
    private static List<String> header(int maxBytes, int outer, int inner, int perf, String szfactor, String where) {
        return List.of("command line args:", "    max_data_size = " + maxBytes,
            "    bytes outer_verification_iters = " + outer, "    inner_verification_iters = " + inner,
            "    performance_iters = " + perf, "    threads_per_node = 1", "    szfactor = " + szfactor,
            "    src addresses " + where + "side the segment", "    dst addresses " + where + "side the segment", "");
    }

    /**
     * The rows from {@code lines[at]} on: per section in {@code sections}, a row per collective per size in
     * {@code sizes} (ints) if {@code timed}, then the PASS line up to {@code lastBytes}. @return the index after them
     */
    private static int sections(List<String> lines, int at, String sections, int[] sizes, boolean timed, String tree,
                                int lastBytes) {
        int i = at;
        for (char section : sections.toCharArray()) {
            final String sync = TestCollPerf.SYNC_MODES[section - 'A'];
            for (int nelem : timed ? sizes : new int[0]) {
                for (String name : COLLECTIVES) {
                    final String row = lines.get(i++);
                    final String start = section + ": 0> LOCAL/SINGLE-addr " + name + " sync_mode: (" + sync
                        + ") tree: " + tree + " size: " + 4 * nelem + " bytes";
                    assertTrue(row.startsWith(start), row + " is not " + start);
                    final Matcher time = TIME.matcher(row.substring(start.length()));
                    assertTrue(time.matches(), row);
                    final String us = time.group(1);
                    assertEquals(us, CollPerfFormat.g(Double.parseDouble(us)), row);
                }
            }
            assertEquals(section + ": sync_mode: " + sync + " 4-" + lastBytes + " bytes root: 0.  PASS",
                lines.get(i++));
        }
        return i;
    }

    private static void end(List<String> lines, int at, int ranks) {
        assertEquals(List.of("node 0/" + ranks + " thread 0> done", "node 0/" + ranks + " done.", ""),
            lines.subList(at, lines.size()), String.join("\n", lines));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void everySectionAndSizeOnTwoRanks() {
        final List<String> lines = run(2, Map.of(), 0, "-warmup", "0", "64", "1", "2", "3");
        assertTrue(lines.get(0).startsWith("Timer granularity: <= "), lines.get(0));
        assertEquals(header(64, 1, 2, 3, "2.00", "in"), lines.subList(1, 11));
        assertEquals(TestCollPerf.SKIPPED, lines.get(11));
        end(lines, sections(lines, 12, "ABCDEFGHI", new int[] {1, 2, 4, 8, 16}, true, "(null)", 64), 2);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void warmupFactorOutOfSegmentSectionsAndTreeOnThreeRanks() {
        final List<String> lines = run(3, Map.of("GASNET_COLL_ROOTED_GEOM", "kary,2"), 0, "-warmup", "2", "-szfactor",
            "3", "-src-out", "-dst-out", "40", "1", "1", "2", "ai");
        assertTrue(lines.get(0).startsWith("Timer granularity: <= "), lines.get(0));
        assertEquals(header(40, 1, 1, 2, "3.00", "out"), lines.subList(1, 11));
        assertEquals(TestCollPerf.SKIPPED, lines.get(11));
        end(lines, sections(lines, 12, "AI", new int[] {1, 3, 9}, true, "kary,2", 36), 3);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void verificationOnlyWithoutPerformanceIterations() {
        final List<String> lines = run(3, Map.of(), 0, "-dst-in", "8", "1", "3");
        assertEquals(header(8, 1, 3, 0, "2.00", "in"), lines.subList(0, 10));
        assertEquals(TestCollPerf.SKIPPED, lines.get(10));
        end(lines, sections(lines, 11, "ABCDEFGHI", new int[] {1, 2}, false, "(null)", 8), 3);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void innerIterationsScaledToTheSegment() {
        // both buffers, 50 x 2 ranks x 1 KiB each, want 200 KiB: half of a 64 KiB segment takes 6 inner iterations
        final List<String> lines = run(2, Map.of("GEX_MAX_SEGSIZE", "65536"), 0, "-warmup", "0", "1024", "1", "50", "0",
            "a");
        final List<String> expected = new ArrayList<>(header(1024, 1, 50, 0, "2.00", "in"));
        expected.addAll(List.of("WARNING: inner iterations too large.", "",
            "Scaling down inner iterations and scaling up outer iterations to compensate", "",
            "adjusted args: max_data_size=1024 bytes outer_verification_iters=8 inner_verification_iters=6 "
                + "performance_iters=0 threads_per_node=1 ", TestCollPerf.SKIPPED));
        assertEquals(expected, lines.subList(0, expected.size()));
        end(lines, sections(lines, expected.size(), "A", null, false, "(null)", 1024), 2);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void badArgumentsPrintTheUsage() {
        for (String[] args : List.of(new String[] {"-x"}, new String[] {"-szfactor", "1"}, new String[] {"-szfactor"},
            new String[] {"64", "1", "1", "-1"}, new String[] {"64", "1", "1", "1", "A", "extra"})) {
            final List<String> lines = run(2, Map.of(), 1, args);
            assertTrue(lines.get(0).startsWith("Usage: testcollperf [options] (max data size) "
                + "(outer_verification_iters) (inner_verification_iters) (performance_iters) (test sections)"),
                String.join(" ", args) + ": " + lines);
        }
    }

    @Test
    void percentGAndPointTwoFAsC() {
        final double[] values = {0.0, 12.5, 1234567.0, 0.0001, 0.00001234, 123456.5, 999999.5, 1e100,
            100.0 / 3, 2.0 / 3, 1e-5, 100000.0, 1e6, 0.000123456789, 7.0};
        final String[] c = {"0", "12.5", "1.23457e+06", "0.0001", "1.234e-05", "123456", "1e+06", "1e+100", "33.3333",
            "0.666667", "1e-05", "100000", "1e+06", "0.000123457", "7"};
        for (int i = 0; i < values.length; i++) {
            assertEquals(c[i], CollPerfFormat.g(values[i]), Double.toString(values[i]));
        }
        assertEquals("2.67", CollPerfFormat.fixed2(2.675));
        assertEquals("0.12", CollPerfFormat.fixed2(0.125));
        assertEquals("2.00", CollPerfFormat.fixed2(2));
        assertEquals("1.00", CollPerfFormat.fixed2(1.005));
    }
}
