package org.gexj.testam;

import org.gexj.benchutil.WarmupIters;
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

class TestAmOutputTest {
    /**
     * A result line, read loosely (any spacing) so that a line with a wrong width is still found and then fails
     * {@link #assertGasnetFormat}: section, optional rank, optional size, category, test, seconds, us, optional MB/s.
     */
    static final Pattern LINE = Pattern.compile("^([A-K]): (?:(\\d+): )?\\s*(\\d+)?\\s*(AMShort|AMMedium|AMLong)\\s+"
        + "(ping-pong roundtrip Req(?:Rep|Req)|flood\\s+one-way\\s+Req|flood\\s+roundtrip ReqRep"
        + "|flood\\s+two-way\\s+Req)"
        + "\\s*:\\s*(\\d+\\.\\d+) sec\\s+(\\d+\\.\\d+) us(?:\\s+(\\d+\\.\\d+) MB/s)?$");

    /** The lines GASNet prints before the results, for the default settings and 20 iterations. */
    static final String DEFAULT_HEADER = """
        Running 20 iterations of  AM performance with:
          local addresses inside the segment (default)
          synchronous LC for Requests (default)
          fixed-Payload (default)
          no payload initialization (default)
          0 extra recvr polling threads
          ...
           Msg Sz  Description                             Total time   Avg. time   Bandwidth
           ------  -----------                             ----------   ---------   ---------
        """;

    /** Runs testam in-process over smp; @return each rank's output */
    static String[] runAll(int ranks, String... args) {
        final ByteArrayOutputStream[] bytes = new ByteArrayOutputStream[ranks];
        final PrintStream[] outs = new PrintStream[ranks];
        for (int r = 0; r < ranks; r++) {
            bytes[r] = new ByteArrayOutputStream();
            outs[r] = new PrintStream(bytes[r], true, StandardCharsets.UTF_8);
        }
        InProcessJob.run(ranks, Duration.ofSeconds(120), Map.of("GEX_CONDUIT", "smp"),
            client -> assertEquals(0, TestAm.run(client, args, outs[client.rank()])));
        final String[] output = new String[ranks];
        for (int r = 0; r < ranks; r++) {
            output[r] = bytes[r].toString(StandardCharsets.UTF_8);
        }
        return output;
    }

    static String run(int ranks, String... args) {
        return runAll(ranks, args)[0];
    }

    static List<Matcher> results(String output) {
        final List<Matcher> lines = new ArrayList<>();
        for (String line : output.split("\n")) {
            final Matcher m = LINE.matcher(line);
            if (m.matches()) {
                lines.add(m);
            }
        }
        return lines;
    }

    static String section(Matcher m) {
        return m.group(1);
    }

    /** The payload size of a result line; AMShort lines have none. */
    static long size(Matcher m) {
        return m.group(3) == null ? 0 : Long.parseLong(m.group(3));
    }

    /**
     * The line must be exactly what GASNet's printf formats print for the values it shows: {@code "%c: %s%-46s:
     * %6.3f sec %8.3f us"} and {@code "  %7.3f MB/s"}, the description being {@code "%7d %-11s %s"} (AMShort: no
     * size), the test's words spaced as GASNet's, and {@code rankPrefix} the {@code "r: "} GASNet puts before the
     * description when there are more than 2 ranks.
     */
    static void assertGasnetFormat(Matcher m, String rankPrefix) {
        final String test = switch (m.group(5).replaceAll("\\s+", " ")) {
            case "flood one-way Req" -> "flood     one-way   Req";
            case "flood roundtrip ReqRep" -> "flood     roundtrip ReqRep";
            case "flood two-way Req" -> "flood     two-way   Req";
            default -> m.group(5);
        };
        final String size = m.group(3) == null ? "       "
            : String.format(Locale.ROOT, "%7d", Long.parseLong(m.group(3)));
        final String description = size + " " + String.format(Locale.ROOT, "%-11s", m.group(4)) + " " + test;
        String expected = String.format(Locale.ROOT, "%s: %s%-46s: %6.3f sec %8.3f us", m.group(1), rankPrefix,
            description, Double.parseDouble(m.group(6)), Double.parseDouble(m.group(7)));
        if (m.group(8) != null) {
            expected += String.format(Locale.ROOT, "  %7.3f MB/s", Double.parseDouble(m.group(8)));
        }
        assertEquals(expected, m.group(), "GASNet's format");
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everySectionPrintsGasnetLinesWithSizesInOrder() {
        final String output = run(2, "-warmup", "50", "20", "4096");
        assertTrue(output.startsWith("Timer granularity: <= "), output);
        assertTrue(output.matches("(?s).*Timer granularity: <= \\d+\\.\\d{3} us, overhead: ~ \\d+\\.\\d{3} us\n.*"),
            output);
        assertTrue(output.contains("smp conduit: v"), output);
        assertTrue(output.endsWith("node 0/2 done.\n"), output);
        assertTrue(output.contains(" gex_AM_LUBRequestMedium(): 65536"), output);
        assertTrue(output.contains(DEFAULT_HEADER), output);
        final List<Matcher> lines = results(output);
        // the warm-up pass printed nothing: every result line comes after the header
        assertTrue(output.indexOf(lines.get(0).group()) > output.indexOf(DEFAULT_HEADER), output);
        // A: 4 Short tests; B-K: 14 sizes each (0, 1, 2, ... 4096)
        assertEquals(4 + 10 * 14, lines.size(), output);
        final List<Long> expectedSizes = new ArrayList<>(List.of(0L));
        for (long s = 1; s <= 4096; s *= 2) {
            expectedSizes.add(s);
        }
        for (char section = 'B'; section <= 'K'; section++) {
            final String name = String.valueOf(section);
            final List<Long> sizes = lines.stream().filter(m -> section(m).equals(name)).map(TestAmOutputTest::size)
                .toList();
            assertEquals(expectedSizes, sizes, "sizes of section " + section);
        }
        for (Matcher m : lines) {
            assertGasnetFormat(m, "");
            final double micros = Double.parseDouble(m.group(7));
            assertTrue(micros > 0 && Double.isFinite(micros), m.group());
            assertEquals(size(m) != 0, m.group(8) != null, "bandwidth only with a payload: " + m.group());
        }
        assertTrue(output.contains("G:    4096 AMLong      ping-pong roundtrip ReqRep:"), output);
    }

    /**
     * GASNet's widths, against lines printed by C's printf with testam.c's formats (through Python's %, which follows
     * it), also where a value outgrows its width.
     */
    @Test
    void resultLinesHaveGasnetsWidths() {
        assertEquals("A:         AMShort     ping-pong roundtrip ReqRep:  0.012 sec    1.235 us",
            Report.resultLine('A', 0, 2, "        AMShort     ping-pong roundtrip ReqRep", 12_345.6, 10_000, 0, true));
        assertEquals("B:      64 AMMedium    flood     one-way   Req   :  2.000 sec    2.000 us   30.518 MB/s",
            Report.resultLine('B', 0, 2, "     64 AMMedium    flood     one-way   Req", 2e6, 1_000_000, 64, false));
        assertEquals("G: 4: 1048576 AMLong      ping-pong roundtrip ReqRep: 123.457 sec 123456.789 us   16.200 MB/s",
            Report.resultLine('G', 4, 6, "1048576 AMLong      ping-pong roundtrip ReqRep", 123_456_789, 1000,
                1 << 20, true));
        assertEquals("K: 2:       1 AMLong      flood     two-way   Req   :  0.000 sec    0.040 us   23.842 MB/s",
            Report.resultLine('K', 2, 3, "      1 AMLong      flood     two-way   Req", 400, 10_000, 1, false));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aSectionAndANonPowerOfTwoMaximumGiveAMaxStep() {
        final String output = run(2, "-warmup", "0", "-np-gb", "10", "3000", "G");
        final List<Matcher> lines = results(output);
        assertTrue(lines.stream().allMatch(m -> section(m).equals("G")), output);
        assertEquals(14, lines.size(), output);
        assertTrue(output.contains(" max:\n"), output);
        assertEquals(3000, size(lines.get(lines.size() - 1)), output);
        assertTrue(output.contains("  negotiated-Payload with GASNet-provided buffer\n"), output);
        lines.forEach(m -> assertGasnetFormat(m, ""));
    }

    /** -max-step: sizes double up to the step, then grow by it, and the maximum comes last after " max:". */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void maxStepLimitsTheGrowthOfSizes() {
        final String output = run(2, "-warmup", "0", "-s", "-max-step", "1000", "10", "4096", "D");
        final List<Long> sizes = results(output).stream().map(TestAmOutputTest::size).toList();
        assertEquals(List.of(0L, 1L, 2L, 4L, 8L, 16L, 32L, 64L, 128L, 256L, 512L, 1024L, 2024L, 3024L, 4024L, 4096L),
            sizes, output);
        assertTrue(output.contains("   4024 AMMedium    flood     one-way   Req   :")
            && output.indexOf(" max:\n") > output.indexOf("   4024 AMMedium"), output);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void oneRankTalksToItselfWithEveryNonDefaultSetting() {
        final String output = run(1, "-warmup", "0", "-np-cb", "-out", "-async-req", "-src-memcpy", "-p", "1", "10",
            "1024", "BG");
        assertTrue(output.contains("""
            Running 10 iterations of  AM performance with:
              local addresses outside the segment
              asynchronous LC for Requests
              negotiated-Payload with client-provided buffer
              payload initialized using memcpy()
              1 extra recvr polling threads
              ...
            """), output);
        final List<Matcher> lines = results(output);
        assertEquals(2 * 12, lines.size(), output);
        lines.forEach(m -> assertGasnetFormat(m, ""));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void generatedPayloadsAndPollingThreadsWithTwoRanks() {
        final String output = run(2, "-warmup", "0", "-src-generate", "-p", "1", "-c", "10", "512", "ABEGJ");
        assertTrue(output.contains("""
            Running 10 iterations of cross-machine  AM performance with:
              local addresses inside the segment (default)
              synchronous LC for Requests (default)
              fixed-Payload (default)
              payload initialized by computation
              1 extra recvr polling threads
            """), output);
        final List<Matcher> lines = results(output);
        assertEquals(4 + 4 * 11, lines.size(), output);
        lines.forEach(m -> assertGasnetFormat(m, ""));
    }

    /** With more than 2 ranks each sender puts its rank before the description; rank 2 talks to itself. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void withThreeRanksEachResultLineNamesItsSender() {
        final String[] outputs = runAll(3, "-warmup", "0", "10", "16", "AB");
        for (int rank = 0; rank < 3; rank++) {
            final List<Matcher> lines = results(outputs[rank]);
            assertEquals(rank == 1 ? 0 : 4 + 6, lines.size(), "rank " + rank + " sends unless odd:\n" + outputs[rank]);
            for (Matcher m : lines) {
                assertGasnetFormat(m, rank + ": ");
            }
            assertTrue(outputs[rank].endsWith("node " + rank + "/3 done.\n"), outputs[rank]);
        }
    }

    @Test
    void outRegSendsLongsFromARegisteredBufferAsRendezvous() {
        final Map<String, Long> sent = new java.util.concurrent.ConcurrentHashMap<>();
        final PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        InProcessJob.run(2, Duration.ofSeconds(120), Map.of("GEX_CONDUIT", "smp", "GEX_SMP_CMA", "on",
            "GEX_AMLONG_RENDEZVOUS_MIN", "65536"), client -> {
                assertEquals(0, TestAm.run(client, new String[] {"-warmup", "0", "-out-reg", "20", "131072", "G"},
                    quiet));
                sent.put(client.rank() + "", client.stats().get("am.rendezvous.sent"));
            });
        // at least the ping-pong's 20 requests of 64 and of 128 KiB from rank 0, GASNet's sender
        assertTrue(sent.get("0") >= 2 * 20, sent.toString());
        assertTrue(TestAmOptions.parse("-out-reg").registeredSource() && !TestAmOptions.parse("-out-reg").inSegment());
        assertTrue(!TestAmOptions.parse("-out-reg", "-out").registeredSource());
    }

    @Test
    void argumentsAreCheckedLikeGasnets() {
        final TestAmOptions d = TestAmOptions.parse();
        assertEquals(1000, d.iters());
        assertEquals(2L << 20, d.maxSize());
        assertTrue(d.inSegment() && d.sectionEnabled('A') && d.sectionEnabled('K'));
        assertEquals(TestAmOptions.DEFAULT_WARMUP_ITERS, d.warmupIters());
        assertEquals(WarmupIters.MEMORY, d.warmupFor(true));
        assertEquals(WarmupIters.NETWORK, d.warmupFor(false));
        assertEquals(7, TestAmOptions.parse("-warmup", "7").warmupFor(true));
        assertEquals(TestAmOptions.SourceMode.NOOP, d.source());
        assertTrue(!d.skipWarmup() && d.pollers() == 0 && d.maxStep() == 0);
        assertEquals(64, d.step(64), "without -max-step sizes double");
        assertEquals(0, TestAmOptions.parse("-warmup", "0").warmupIters());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TestAmOptions.parse("-warmup", "-3"))
            .getMessage().contains("-3"));
        assertThrows(IllegalArgumentException.class, () -> TestAmOptions.parse("-warmup"));
        final TestAmOptions o = TestAmOptions.parse("-out", "-async-req", "-np-cb", "50", "1024", "gk");
        assertEquals(TestAmOptions.PayloadMode.NEGOTIATED_CLIENT_BUFFER, o.payload());
        assertTrue(!o.inSegment() && o.asyncRequests() && o.sectionEnabled('G') && !o.sectionEnabled('H'));
        final TestAmOptions g =
            TestAmOptions.parse("-s", "-p", "3", "-max-step", "1000", "-src-memcpy", "-src-generate");
        assertTrue(g.skipWarmup());
        assertEquals(3, g.pollers());
        assertEquals(TestAmOptions.SourceMode.GENERATE, g.source(), "the last -src option wins");
        assertEquals(1000, g.step(4096));
        assertEquals(512, g.step(512));
        assertEquals(TestAmOptions.SourceMode.MEMCPY, TestAmOptions.parse("-src-memcpy").source());
        assertEquals(TestAmOptions.SourceMode.NOOP, TestAmOptions.parse("-src-generate", "-src-noop").source());
        expectBad("[0, 255]", "-p", "256");
        expectBad("-1", "-p", "-1");
        expectBad("[0, 255]", "-p");
        expectBad("'many'", "-p", "many");
        expectBad("[0, 2147483647]", "-max-step", "-5");
        expectBad("[0, 2147483647]", "-max-step");
        expectBad("-src-zero", "-src-zero");
        expectBad("-bogus", "-bogus");
        expectBad("-5", "-5");
        expectBad("AZ", "10", "20", "AZ");
        expectBad("ten", "ten");
        expectBad("extra", "1", "2", "A", "extra");
    }

    private static void expectBad(String mentioned, String... args) {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> TestAmOptions.parse(args));
        assertTrue(e.getMessage().contains(mentioned), "'" + e.getMessage() + "' should name " + mentioned);
    }
}
