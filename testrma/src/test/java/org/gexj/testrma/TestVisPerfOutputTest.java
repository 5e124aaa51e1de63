package org.gexj.testrma;

import org.gexj.launch.InProcessJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * testvisperf prints GASNet's lines on smp: the header, then sections A-F (vector, indexed, strided; put then get),
 * each a table per contig size with GASNet's density header and a row per data size of positive MiB/s values, in
 * GASNet's order; with a time as the iteration argument, the run-time estimate; bad arguments print the usage.
 */
class TestVisPerfOutputTest {
    private static final Map<String, String> SMP = Map.of("GEX_CONDUIT", "smp");
    private static final String[] TABLES = {"VECTOR PUT", "VECTOR GET", "INDEXED PUT", "INDEXED GET", "STRIDED PUT",
        "STRIDED GET"};

    private static List<String> run(int expectedExit, String... args) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        InProcessJob.run(2, Duration.ofSeconds(60), SMP,
            client -> assertEquals(expectedExit, TestVisPerf.run(client, args, client.rank() == 0 ? out : sink)));
        return List.of(bytes.toString(StandardCharsets.UTF_8).split("\n", -1));
    }

    /** Checks the tables from {@code lines[at]} on: sections, contig sizes 8..maxContig by 8x, data sizes by 2x. */
    private static int tables(List<String> lines, int at, String sections, long maxContig, long maxData) {
        int i = at;
        for (char section : sections.toCharArray()) {
            for (long contig = 8; contig <= maxContig; contig *= 8) {
                final String where = "line " + i + " of\n" + String.join("\n", lines);
                assertEquals("", lines.get(i++), where);
                assertEquals(section + ": " + TABLES[section - 'A'] + " CONTIGSZ = " + contig, lines.get(i++), where);
                assertEquals(" density:     100%      75%      50%      25%", lines.get(i++), where);
                for (long data = contig; data <= maxData; data *= 2) {
                    final String row = lines.get(i++);
                    assertTrue(row.startsWith(String.format("%8d: ", data)), row + "\n" + where);
                    final String[] cells = row.substring(10).trim().split(" +");
                    assertEquals(4, cells.length, row);
                    for (String cell : cells) {
                        assertTrue(Double.parseDouble(cell) > 0, row);
                    }
                }
            }
        }
        return i;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void everySectionInGasnetsOrder() {
        final List<String> lines = run(0, "-warmup", "3", "-maxdata", "4096", "-maxcontig", "512", "3");
        assertTrue(lines.get(0).startsWith("Timer granularity: <= "), lines.get(0));
        assertEquals(List.of("Running 3 iterations of non-contiguous put/get NBI ",
            "   local data in-segment for payload sizes: 8...4096  (datafactor=2.00)",
            "   contig sizes: 8...512  (contigfactor=8.00)",
            "   densitysteps=4 stridelevels=2",
            "rows are databytes/op : bandwidth values in MiB/s"), lines.subList(1, 6));
        final int end = tables(lines, 6, "ABCDEF", 512, 4096);
        assertEquals(List.of(""), lines.subList(end, lines.size()));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void timedIterationsNbOutOfSegmentAndSections() {
        final List<String> lines = run(0, "-warmup", "0", "-nb", "-out", "-r", "-maxdata", "1024", "-maxcontig", "64",
            "0.002", "be");
        assertEquals(List.of("Running 0.002 iterations of non-contiguous put/get NB (remotely-contiguous)",
            "   local data out-segment for payload sizes: 8...1024  (datafactor=2.00)",
            "   contig sizes: 8...64  (contigfactor=8.00)",
            "   densitysteps=4 stridelevels=2",
            // 2 sections x (8 + 5 rows) x 4 densities x 2 x 0.002 s
            "ESTIMATED test run time: ~ 0 sec (0.0 min)",
            "rows are databytes/op : bandwidth values in MiB/s"), lines.subList(1, 7));
        final int end = tables(lines, 7, "BE", 64, 1024);
        assertEquals(List.of(""), lines.subList(end, lines.size()));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void badArgumentsPrintTheUsage() {
        final List<String> bad = run(1, "-x");
        assertTrue(bad.get(0).startsWith("Usage: testvisperf [options] (iters) (test_sections)"), bad.toString());
        final List<String> contig = run(1, "-maxcontig", "64", "-maxdata", "32");
        assertEquals("ERROR: max_contig > max_payload", contig.get(0));
        assertTrue(contig.get(1).startsWith("Usage: testvisperf"), contig.toString());
        assertTrue(run(1, "-warmup", "-1").get(0).startsWith("Usage: testvisperf"));
        assertTrue(run(1, "10", "A", "extra").get(0).startsWith("Usage: testvisperf"));
    }
}
