package org.gexj.testrma;

import org.gexj.launch.InProcessJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * testvis, GASNet's VIS correctness test, passes at 2 and 3 ranks on smp, with VIS choosing (a copy per chunk), with
 * the active-message packing forced ({@code GEX_VIS=packed}) and with a transfer per chunk forced
 * ({@code GEX_VIS=pieces}), printing GASNet's lines in GASNet's order and no error: a byte moved wrong makes testvis
 * print a mismatch and end the job with exit code 1, which fails the run here.
 */
class TestVisOutputTest {
    private static final String[] SECTIONS = {"Vector... (max_veclen=100)",
        "Indexed... (max_idxlen=8192, max_chunksz=256)", "Strided (linear)... (max_stridedim=20)",
        "Strided (transpositional)... (max_stridedim=20)", "Non-blocking tests... (max_inflight_ops=16)"};
    private static final List<String> SKIPPED = List.of(
        "Skipping peer-completion handler tests (gex_VIS_SetPeerCompletionHandler): GEX/J's VIS has none",
        "Skipping GEX_FLAG_IMMEDIATE and GEX_FLAG_ENABLE_LEAF_LC variants: GEX/J's VIS takes no flags (the LC"
            + " overwrite tests clear a put's source after its completion)");
    /** TEST_PROGRESS_BAR's lines for 20 iterations: every tenth of them. */
    private static final List<String> PROGRESS_20 = List.of("10%", "20%", "30%", "40%", "50%", "60%", "70%", "80%",
        "90%", "100%");

    /** Runs testvis on {@code ranks} ranks, all printing to one stream. @return its lines */
    private static List<String> run(int ranks, Map<String, String> env, int expectedExit, String... args) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try {
            InProcessJob.run(ranks, Duration.ofSeconds(100), env,
                client -> assertEquals(expectedExit, TestVis.run(client, args, out)));
        } catch (AssertionError e) { // a failed check exits the job: show what testvis printed
            throw new AssertionError(e.getMessage() + "\n" + bytes.toString(StandardCharsets.UTF_8), e);
        }
        final String output = bytes.toString(StandardCharsets.UTF_8);
        assertFalse(output.contains("ERROR"), output);
        return List.of(output.split("\n"));
    }

    /** The lines rank {@code r} printed as "node r/n ...", in order. */
    private static List<String> ofRank(List<String> lines, int r, int ranks) {
        return lines.stream().filter(l -> l.startsWith("node " + r + "/" + ranks + " ")).toList();
    }

    /** Rank 0's lines: its own "node 0/n" ones and the unprefixed ones only it prints, in order. */
    private static List<String> ofRank0(List<String> lines) {
        return lines.stream().filter(l -> !l.startsWith("node ") || l.startsWith("node 0/")).toList();
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void everySectionPassesAtTwoAndThreeRanksDirectPackedAndInPieces() {
        for (Map<String, String> env : List.of(Map.of("GEX_CONDUIT", "smp"),
            Map.of("GEX_CONDUIT", "smp", "GEX_VIS", "packed"), Map.of("GEX_CONDUIT", "smp", "GEX_VIS", "pieces"))) {
            for (int ranks = 2; ranks <= 3; ranks++) {
                final List<String> lines = run(ranks, env, 0, "-mm", "4", "20", "5");
                final String where = env + ", " + ranks + " ranks:\n" + String.join("\n", lines);
                for (int r = 0; r < ranks; r++) {
                    final String node = "node " + r + "/" + ranks + " ";
                    final List<String> expected = new ArrayList<>();
                    expected.add(node + "running 20 iterations of VISXN test (seed=" + (5 + r)
                        + ", VEC_SZ=1, PC_FREQ=0, segsz=4 MB)...");
                    if (r == 0) {
                        expected.addAll(SKIPPED);
                    }
                    for (String section : SECTIONS) {
                        expected.add(node + section);
                        if (r == 0) {
                            expected.addAll(PROGRESS_20);
                        }
                    }
                    expected.add(node + "done.");
                    assertEquals(expected, r == 0 ? ofRank0(lines) : ofRank(lines, r, ranks), where);
                }
                assertEquals(ranks * 7 + 2 + 5 * PROGRESS_20.size(), lines.size(), where);
            }
        }
    }

    @Test
    @Timeout(value = 100, unit = TimeUnit.SECONDS)
    void halfDuplexChosenSectionsWithTiming() {
        final List<String> lines = run(3, Map.of("GEX_CONDUIT", "smp"), 0, "-o", "-t", "-vsn", "-mm", "1", "-mv", "20",
            "12", "9");
        final String where = String.join("\n", lines);
        // node 1 is odd: passive, it takes the barriers only
        assertEquals(List.of("node 1/3 running 12 iterations of half-duplex VSN test (seed=10, VEC_SZ=1, PC_FREQ=0,"
            + " segsz=1 MB)...", "node 1/3 done."), ofRank(lines, 1, 3), where);
        for (int r : new int[] {0, 2}) {
            final String node = "node " + r + "/3 ";
            final List<String> mine = r == 0 ? ofRank0(lines) : ofRank(lines, r, 3);
            int at = 0;
            assertEquals(node + "running 12 iterations of half-duplex VSN test (seed=" + (9 + r)
                + ", VEC_SZ=1, PC_FREQ=0, segsz=1 MB)...", mine.get(at++), where);
            if (r == 0) {
                assertEquals(SKIPPED, mine.subList(at, at + 2), where);
                at += 2;
            }
            for (String section : new String[] {"Vector... (max_veclen=20)", "Strided (linear)... (max_stridedim=20)",
                "Non-blocking tests... (max_inflight_ops=16)"}) {
                assertEquals(node + section, mine.get(at++), where);
                if (r == 0) { // 12 iterations: a line every 12/10 = 1 of them, the last at 12
                    for (int i = 1; i <= 12; i++) {
                        assertEquals((int) (100.0 * i / 12) + "%", mine.get(at++), where);
                    }
                }
                if (!section.startsWith("Non-blocking")) { // TIME_OUTPUT, not after the non-blocking section
                    final char flavor = Character.toLowerCase(section.charAt(0));
                    for (String pg : new String[] {"put", "get"}) {
                        final String line = mine.get(at++);
                        assertTrue(line.matches(node + pg + flavor + " bandwidth \\(MB/s\\): +[0-9.]+ avg, +[0-9.]+"
                            + " max, +([0-9.]+|inf) min"), line + "\n" + where);
                    }
                    final String size = mine.get(at++);
                    assertTrue(size.matches(node + "data size: +[0-9.]+MB total, +[0-9.]+KB avg, +[0-9.]+KB min,"
                        + " +[0-9.]+KB max"), size + "\n" + where);
                }
            }
            assertEquals(List.of(node + "done."), mine.subList(at, mine.size()), where);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void badArgumentsPrintTheUsage() {
        for (String[] args : new String[][] {{"-h"}, {"-mv", "0"}, {"-q"}, {"-mi", "x"}, {"-mm"}, {"-mc", "4"},
            {"10", "5", "3"}}) {
            final List<String> lines = run(2, Map.of("GEX_CONDUIT", "smp"), 1, args);
            assertEquals("Usage: testvis [options] (iters) (seed)", lines.get(0), String.join(" ", args));
            assertEquals(TestVis.USAGE.split("\n").length, lines.size(), String.join("\n", lines));
        }
    }
}
