package org.gexj.testqueue;

import org.gexj.launch.InProcessJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestQueueOutputTest {
    /** A cell of a row, read loosely so that a wrong width is still found and then fails {@link #assertGasnetRow}. */
    private static final Pattern CELL = Pattern.compile(" +\\d+(?:\\.\\d+)?");

    /** Runs testqueue in-process; @return each rank's output */
    static String[] runAll(int ranks, Map<String, String> env, String... args) {
        final ByteArrayOutputStream[] bytes = new ByteArrayOutputStream[ranks];
        final PrintStream[] outs = new PrintStream[ranks];
        for (int r = 0; r < ranks; r++) {
            bytes[r] = new ByteArrayOutputStream();
            outs[r] = new PrintStream(bytes[r], true, StandardCharsets.UTF_8);
        }
        InProcessJob.run(ranks, Duration.ofSeconds(120), env,
            client -> assertEquals(0, TestQueue.run(client, args, outs[client.rank()])));
        final String[] output = new String[ranks];
        for (int r = 0; r < ranks; r++) {
            output[r] = bytes[r].toString(StandardCharsets.UTF_8);
        }
        return output;
    }

    static String run(int ranks, Map<String, String> env, String... args) {
        return runAll(ranks, env, args)[0];
    }

    /**
     * The table after {@code title} (GASNet's MSG0 "\n%s\n--------------------\n" then the header row): checks the
     * header row is {@code "        "} and {@code " %7i"} per depth, and returns the rows.
     */
    static List<String> table(String output, String title, int maxDepth) {
        final String[] lines = output.split("\n", -1);
        int i = 0;
        while (!lines[i].equals(title)) {
            i++;
        }
        assertEquals("", lines[i - 1], "a blank line before " + title);
        assertEquals("--------------------", lines[i + 1]);
        assertEquals("", lines[i + 2]);
        final StringBuilder header = new StringBuilder("        ");
        for (int depth = 1; depth <= maxDepth; depth *= 2) {
            header.append(String.format(Locale.ROOT, " %7d", depth));
        }
        assertEquals(header.toString(), lines[i + 3], "header row of " + title);
        final List<String> rows = new ArrayList<>();
        for (int r = i + 4; r < lines.length && !lines[r].isEmpty(); r++) {
            rows.add(lines[r]);
        }
        return rows;
    }

    /**
     * A row must be {@code "%-8i"} of the payload, then one {@code " %7.*f"} per depth with GASNet's precision rule:
     * 3 decimals below 1000 us, 2 below 10000, 1 below 100000, else 0. The rule applies to the unrounded time, so a
     * time just under a bound may print as the bound with the lower bound's decimals.
     */
    static void assertGasnetRow(String row, long payload, int cells) {
        final String first = String.format(Locale.ROOT, "%-8d", payload);
        assertTrue(row.startsWith(first), "'" + row + "' starts with '" + first + "'");
        final Matcher m = CELL.matcher(row.substring(first.length()));
        int count = 0;
        int end = 0;
        while (m.find()) {
            assertEquals(end, m.start(), "cells follow each other: '" + row + "'");
            end = m.end();
            final String cell = m.group();
            final double us = Double.parseDouble(cell.trim());
            assertTrue(us > 0 && Double.isFinite(us), row);
            final int precision = us < 1000 ? 3 : us < 10000 ? 2 : us < 100000 ? 1 : 0;
            final String expected = String.format(Locale.ROOT, " %7." + precision + "f", us);
            final boolean roundedUpToABound = us == 1000 || us == 10000 || us == 100000;
            assertTrue(cell.equals(expected) || roundedUpToABound
                    && cell.equals(String.format(Locale.ROOT, " %7." + (precision + 1) + "f", us)),
                "cell '" + cell + "' of '" + row + "' should be '" + expected + "'");
            count++;
        }
        assertEquals(row.length() - first.length(), end, "nothing after the cells: '" + row + "'");
        assertEquals(cells, count, row);
    }

    @Test
    void cellsFollowGasnetsPrecisionRule() {
        assertEquals("   0.123", TestQueue.cell(0.1234));
        assertEquals(" 999.999", TestQueue.cell(999.9994));
        assertEquals(" 1000.000", TestQueue.cell(999.9996), "the rule looks at the unrounded time");
        assertEquals(" 1234.57", TestQueue.cell(1234.567));
        assertEquals(" 12345.7", TestQueue.cell(12345.67));
        assertEquals("  123457", TestQueue.cell(123456.7));
        assertEquals(" 1234568", TestQueue.cell(1234567.8));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void amLongImplicitPrintsADepthByPayloadTable() {
        final String output = run(2, Map.of("GEX_CONDUIT", "smp"), "-l", "-i", "10", "8", "1024");
        assertTrue(output.contains(
            "\nRunning queue test with local addr inside segment, iters=10, maxdepth=8, sz: 1...1024\n"
            + "x-axis: queue depth, y-axis: message size, injection time in microseconds\n\n"), output);
        assertTrue(output.startsWith("Timer granularity: <= "), output);
        final List<String> rows = table(output, "gex_AM_RequestLong0 (implicit handle for LC)", 8);
        assertEquals(11, rows.size(), output);
        long payload = 1;
        for (String row : rows) {
            assertGasnetRow(row, payload, 4);
            payload *= 2;
        }
        assertTrue(!output.contains("RequestMedium") && !output.contains("RMA"), output);
        assertEquals(1, output.split("gex_AM_RequestLong0 \\(implicit", -1).length - 1,
            "the warm-up pass is silent:\n" + output);
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyDefaultSectionRunsOverRmaOverAmToo() {
        final String output = run(2, Map.of("GEX_CONDUIT", "smp", "GEX_RMA_OVER_AM", "1"), "-warmup", "0", "-out", "2",
            "4", "256");
        assertTrue(output.contains(
            "Running queue test with local addr outside segment, iters=2, maxdepth=4, sz: 1...256"), output);
        for (String title : List.of("gex_RMA_PutNB/bulk", "gex_RMA_PutNBI/bulk", "gex_RMA_PutNB", "gex_RMA_GetNB",
            "gex_RMA_PutNBI", "gex_RMA_GetNBI", "gex_RMA_PutNBVal", "gex_RMA_PutNBIVal",
            "gex_RMA_PutBlocking (BLOCKING - represents round-trip latency)",
            "gex_RMA_GetBlocking (BLOCKING - represents round-trip latency)",
            "gex_RMA_PutBlockingVal (BLOCKING - represents round-trip latency)",
            "gex_RMA_GetBlockingVal (BLOCKING - represents round-trip latency)", "gex_AM_RequestShort0",
            "gex_AM_RequestMedium0 (blocking for LC)", "gex_AM_RequestMedium0 (explicit handle for LC)",
            "gex_AM_RequestMedium0 (implicit handle for LC)", "gex_AM_RequestLong0 (blocking for LC)",
            "gex_AM_RequestLong0 (explicit handle for LC)", "gex_AM_RequestLong0 (implicit handle for LC)")) {
            final List<String> rows = table(output, title, 4);
            assertTrue(!rows.isEmpty(), title + " has rows:\n" + output);
            long payload = 1;
            for (String row : rows) {
                assertGasnetRow(row, payload, 3);
                payload *= 2;
            }
        }
        assertEquals(1, table(output, "gex_AM_RequestShort0", 4).size(), "AMShort runs size 1 only");
        assertEquals(4, table(output, "gex_RMA_PutNBVal", 4).size(), "values go to 8 bytes");
    }

    /** With 4 ranks ranks 0 and 2 send, and each prints its own rows as GASNet's puts does: no rank prefix. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void withFourRanksEverySenderPrintsItsRows() {
        final String[] outputs = runAll(4, Map.of("GEX_CONDUIT", "smp"), "-warmup", "0", "-s", "2", "2");
        assertEquals(1, table(outputs[0], "gex_AM_RequestShort0", 2).size(), outputs[0]);
        assertGasnetRow(table(outputs[0], "gex_AM_RequestShort0", 2).get(0), 1, 2);
        for (int rank = 1; rank < 4; rank++) {
            final String[] lines = outputs[rank].split("\n");
            assertEquals(rank == 2 ? 1 : 0, lines[0].isEmpty() ? 0 : lines.length, "rows of rank " + rank + ":\n"
                + outputs[rank]);
        }
        assertGasnetRow(outputs[2].strip(), 1, 2);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anOddNumberOfRanksSkipsTheTestAsGasnetDoes() {
        final String output = run(3, Map.of("GEX_CONDUIT", "smp"), "-warmup", "0", "-s", "2", "2");
        assertTrue(output.startsWith("Timer granularity: <= "), output);
        assertTrue(output.endsWith("\nWARNING: This test requires a unary or even number of nodes. Test skipped.\n\n"),
            output);
    }

    @Test
    void argumentsFollowGasnet() {
        final TestQueueOptions d = TestQueueOptions.parse();
        assertEquals(10, d.iters());
        assertEquals(1024, d.maxDepth());
        assertEquals(2 * 1024 * 1024, d.maxSize());
        assertTrue(d.inSegment(), "GASNet's default is -in");
        assertTrue(d.puts() && d.gets() && d.amShort() && d.amMedium() && d.amLong());
        assertTrue(!TestQueueOptions.parse("-out").inSegment());
        final TestQueueOptions l = TestQueueOptions.parse("-l", "-i", "1000", "256");
        assertTrue(l.amLong() && !l.puts() && l.implicit() && !l.explicit() && !l.blocking());
        assertEquals(1000, l.iters());
        assertEquals(256, l.maxDepth());
        assertEquals(TestQueueOptions.DEFAULT_WARMUP_ITERS, l.warmupIters());
        assertEquals(0, TestQueueOptions.parse("-warmup", "0", "5").warmupIters());
        assertEquals(5, TestQueueOptions.parse("-warmup", "0", "5").iters());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TestQueueOptions.parse("-warmup", "-1"))
            .getMessage().contains("-1"));
        assertThrows(IllegalArgumentException.class, () -> TestQueueOptions.parse("-warmup"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TestQueueOptions.parse("-x"))
            .getMessage().contains("-x"));
        assertThrows(IllegalArgumentException.class, () -> TestQueueOptions.parse("-a", "-f"));
        assertThrows(IllegalArgumentException.class, () -> TestQueueOptions.parse("1", "2", "3", "4"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TestQueueOptions.parse("-3"))
            .getMessage().contains("-3"));
    }
}
