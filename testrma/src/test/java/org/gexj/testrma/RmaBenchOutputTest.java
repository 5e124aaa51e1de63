package org.gexj.testrma;

import org.gexj.Client;
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
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** testsmall and testlarge print GASNet's lines, in GASNet's sections and sizes, on smp and over RMA over AM. */
class RmaBenchOutputTest {
    private static final Pattern LATENCY = Pattern.compile(
        "([A-Z]): +(\\d+) - +(\\d+) byte : +(\\d+) iters, latency +(\\d+) us total, +([\\d.]+) us ave\\. \\((.+)\\)");
    private static final Pattern THROUGHPUT = Pattern.compile(
        "([A-Z]): +(\\d+) - +(\\d+) byte : +(\\d+) iters, throughput +([\\d.]+) ([KM])B/sec \\((.+)\\)");

    /** A row as read back: section, rank, bytes, iterations, what. */
    record Row(char section, int rank, long bytes, int iters, String what) {
    }

    private static String[] runAll(int ranks, Map<String, String> env,
                                   BiFunction<Client, PrintStream, Integer> program) {
        final ByteArrayOutputStream[] bytes = new ByteArrayOutputStream[ranks];
        final PrintStream[] outs = new PrintStream[ranks];
        for (int r = 0; r < ranks; r++) {
            bytes[r] = new ByteArrayOutputStream();
            outs[r] = new PrintStream(bytes[r], true, StandardCharsets.UTF_8);
        }
        InProcessJob.run(ranks, Duration.ofSeconds(120), env,
            client -> assertEquals(0, program.apply(client, outs[client.rank()])));
        final String[] output = new String[ranks];
        for (int r = 0; r < ranks; r++) {
            output[r] = bytes[r].toString(StandardCharsets.UTF_8);
        }
        return output;
    }

    private static String small(Map<String, String> env, String... args) {
        return runAll(2, env, (c, out) -> TestSmall.run(c, args, out))[0];
    }

    private static String large(Map<String, String> env, String... args) {
        return runAll(2, env, (c, out) -> TestLarge.run(c, args, out))[0];
    }

    /**
     * The rows of {@code output}, each checked to be exactly what GASNet's printf makes of its own numbers
     * ({@code wide}: testlarge's widths).
     */
    static List<Row> rows(String output, boolean wide, boolean mb) {
        final List<Row> rows = new ArrayList<>();
        for (String line : output.split("\n")) {
            final Matcher l = LATENCY.matcher(line);
            final Matcher t = THROUGHPUT.matcher(line);
            if (l.matches()) {
                final long total = Long.parseLong(l.group(5));
                final int iters = Integer.parseInt(l.group(4));
                assertEquals(String.format(Locale.ROOT, wide
                        ? "%s: %3d - %10d byte : %7d iters, latency %12d us total, %9.3f us ave. (%s)"
                        : "%s: %2d - %10d byte : %7d iters, latency %10d us total, %9.3f us ave. (%s)",
                    l.group(1), Integer.parseInt(l.group(2)), Long.parseLong(l.group(3)), iters, total,
                    (double) total / iters, l.group(7)), line);
                rows.add(new Row(l.group(1).charAt(0), Integer.parseInt(l.group(2)), Long.parseLong(l.group(3)),
                    iters, l.group(7)));
            } else if (t.matches()) {
                assertEquals(mb ? "M" : "K", t.group(6), line);
                final double rate = Double.parseDouble(t.group(5));
                assertEquals(String.format(Locale.ROOT, (wide ? "%s: %3d" : "%s: %2d")
                        + (mb ? " - %10d byte : %7d iters, throughput %11.6f MB/sec (%s)"
                        : " - %10d byte : %7d iters, throughput %11.3f KB/sec (%s)"),
                    t.group(1), Integer.parseInt(t.group(2)), Long.parseLong(t.group(3)),
                    Integer.parseInt(t.group(4)), rate, t.group(7)), line);
                rows.add(new Row(t.group(1).charAt(0), Integer.parseInt(t.group(2)), Long.parseLong(t.group(3)),
                    Integer.parseInt(t.group(4)), t.group(7)));
            }
        }
        return rows;
    }

    private static List<Row> expectedSmall(int iters, List<Long> sizes, boolean puts, boolean gets, String sections) {
        final String[][] names = {
            {"PutBlocking latency", "GetBlocking latency"}, {"PutBlocking throughput", "GetBlocking throughput"},
            {"PutNBI+NOW latency", "GetNBI latency"}, {"PutNBI+NOW throughput", "GetNBI throughput"},
            {"PutNB+NOW latency", "GetNB latency"}, {"PutNB+NOW throughput", "GetNB throughput"}};
        final List<Row> rows = new ArrayList<>();
        for (int s = 0; s < names.length; s++) {
            final char section = (char) ('A' + s);
            if (sections.indexOf(section) < 0) {
                continue;
            }
            for (long size : sizes) {
                if (puts) {
                    rows.add(new Row(section, 0, size, iters, names[s][0]));
                }
                if (gets) {
                    rows.add(new Row(section, 0, size, iters, names[s][1]));
                }
            }
        }
        return rows;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void testsmallPrintsEverySectionForEverySize() {
        final String output = small(Map.of("GEX_CONDUIT", "smp"), "-warmup", "50", "20", "64");
        assertTrue(output.startsWith("Timer granularity: <= "), output);
        assertTrue(output.contains("\nnode 0/2 Running 20 iterations of non-bulk put/get with local addresses inside"
            + " the segment for sizes: 1...64\n\n"), output);
        assertTrue(output.endsWith("\ndone.\n"), output);
        assertEquals(expectedSmall(20, List.of(1L, 2L, 4L, 8L, 16L, 32L, 64L), true, true, "ABCDEF"),
            rows(output, false, false), "rows, and the warm-up pass silent:\n" + output);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void testsmallStepsSelectsAndUsesMemoryOutsideTheSegmentOverRmaOverAm() {
        final String output = small(Map.of("GEX_CONDUIT", "smp", "GEX_RMA_OVER_AM", "1"), "-out", "-p", "-m",
            "-minsz", "8", "-max-step", "8", "-warmup", "0", "10", "36", "BD");
        assertTrue(output.contains("Running 10 iterations of non-bulk put with local addresses outside the segment"
            + " for sizes: 8...36\n"), output);
        assertEquals(expectedSmall(10, List.of(8L, 16L, 24L, 32L, 36L), true, false, "BD"), rows(output, false, true),
            output);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void testlargePrintsItsFiveSectionsWithLocalBuffersOutsideTheSegment() {
        final String output = large(Map.of("GEX_CONDUIT", "smp"), "-out", "-lbufs", "3", "-m", "-warmup", "20",
            "10", "4K");
        assertTrue(output.contains("\nnode 0/2 Running 10 iterations of bulk put/get with 3 local addresses outside"
            + " the segment for sizes: 16...4096\n\n"), output);
        assertTrue(output.endsWith("\ndone.\n"), output);
        final List<Row> expected = new ArrayList<>();
        final String[][] names = {{"PutBlocking throughput", "GetBlocking throughput"},
            {"PutNBI+DEFER throughput", "GetNBI throughput"}, {"PutNB+DEFER throughput", "GetNB throughput"},
            {"PutNBI+GROUP throughput"}, {"PutNB+event throughput"}};
        for (int s = 0; s < names.length; s++) {
            for (long size = 16; size <= 4096; size *= 2) {
                for (String name : names[s]) {
                    expected.add(new Row((char) ('A' + s), 0, size, 10, name));
                }
            }
        }
        assertEquals(expected, rows(output, true, true), output);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void testlargeWarnsAboutLocalBuffersInTheSegmentAndRunsOverRmaOverAm() {
        final String output = large(Map.of("GEX_CONDUIT", "smp", "GEX_RMA_OVER_AM", "1"), "-lbufs", "4", "-g",
            "-warmup", "0", "5", "64", "C");
        assertTrue(output.contains("WARNING: Ignoring '-lbufs N' without '-out'.\n"), output);
        assertTrue(output.contains("Running 5 iterations of bulk get with 1 local address inside the segment for"
            + " sizes: 16...64\n"), output);
        assertEquals(List.of(new Row('C', 0, 16, 5, "GetNB throughput"), new Row('C', 0, 32, 5, "GetNB throughput"),
            new Row('C', 0, 64, 5, "GetNB throughput")), rows(output, true, false), output);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anOddNumberOfRanksSkipsTheTestAsGasnetDoes() {
        final String output = runAll(3, Map.of("GEX_CONDUIT", "smp"),
            (c, out) -> TestSmall.run(c, new String[] {"-warmup", "0", "2", "8"}, out))[0];
        assertTrue(output.endsWith("\nWARNING: This test requires a unary or even number of nodes. Test skipped.\n\n"),
            output);
    }

    @Test
    void argumentsFollowGasnet() {
        final RmaBenchOptions s = RmaBenchOptions.parse("testsmall", 2048);
        assertEquals(1000, s.iters());
        assertEquals(2048, s.maxSize());
        assertEquals(1, s.minSize());
        assertEquals(2048, s.maxStep(), "sizes double unless -max-step");
        assertTrue(s.inSegment() && s.puts() && s.gets() && !s.unitsMB());
        assertEquals(10_000, s.warmup(), "the same warm-up on every conduit, networks too");
        assertEquals(0, RmaBenchOptions.parse("testsmall", 2048, "-warmup", "0").warmup());
        assertEquals(7, RmaBenchOptions.parse("testlarge", 2048, "-warmup", "7").warmup());
        final RmaBenchOptions l = RmaBenchOptions.parse("testlarge", 2L << 20, "-segsz", "8", "100", "1M", "ab");
        assertEquals(16, l.minSize());
        assertEquals(1L << 20, l.maxSize());
        assertEquals(8L << 20, l.segmentSize(), "-segsz is in MiB");
        assertTrue(l.sectionEnabled('A') && l.sectionEnabled('B') && !l.sectionEnabled('C'));
        assertEquals(64L << 10, RmaBenchOptions.size("64k", 1, "maxsz"));
        final var bad = assertThrows(IllegalArgumentException.class,
            () -> RmaBenchOptions.parse("testsmall", 2048, "-lbufs", "2"));
        assertEquals("unknown option -lbufs", bad.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> RmaBenchOptions.parse("testsmall", 2048, "-minsz", "64", "10", "32")).getMessage()
            .contains("maxsz (32) must be >= 64"));
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> RmaBenchOptions.parse("testsmall", 2048, "x10")).getMessage()
            .contains("iters 'x10' is not a number"));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aBadArgumentPrintsTheUsage() {
        final String output = runAll(2, Map.of("GEX_CONDUIT", "smp"),
            (c, out) -> TestLarge.run(c, new String[] {"-bogus"}, out) == 1 ? 0 : 1)[0];
        assertTrue(output.startsWith("testlarge: unknown option -bogus\nUsage: testlarge [options]"), output);
    }
}
