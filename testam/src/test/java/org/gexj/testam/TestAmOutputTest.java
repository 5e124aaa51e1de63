package org.gexj.testam;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestAmOutputTest {
    /** GASNet's report line: section, description padded to 46, seconds, microseconds, optional MB/s. */
    static final Pattern LINE = Pattern.compile(
        "^([A-K]): (.{46}): +(\\d+\\.\\d{3}) sec +(\\d+\\.\\d{3}) us(?:  +(\\d+\\.\\d{3}) MB/s)?$");

    static String run(int ranks, String... args) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        InProcessJob.run(ranks, Duration.ofSeconds(120), Map.of("GEX_CONDUIT", "smp"), client -> {
            assertEquals(0, TestAm.run(client, args, client.rank() == 0 ? out : new PrintStream(new ByteArrayOutputStream())));
        });
        return bytes.toString(StandardCharsets.UTF_8);
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

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everySectionPrintsGasnetLinesWithSizesInOrder() {
        final String output = run(2, "-warmup", "50", "20", "4096");
        assertTrue(output.startsWith("Timer granularity: <= "), output);
        assertTrue(output.matches("(?s).*Timer granularity: <= \\d+\\.\\d{3} us, overhead: ~ \\d+\\.\\d{3} us\n.*"), output);
        assertTrue(output.contains("smp conduit: v"), output);
        assertTrue(output.endsWith("node 0/2 done.\n"), output);
        assertTrue(output.contains(" gex_AM_LUBRequestMedium(): 65536"), output);
        assertTrue(output.contains("Running AM performance test with 20 iterations..."), output);
        final List<Matcher> lines = results(output);
        // the warm-up pass printed nothing: every result line comes after the header
        assertTrue(output.indexOf(lines.get(0).group()) > output.indexOf("Running AM performance test"), output);
        // A: 4 Short tests; B-K: 14 sizes each (0, 1, 2, ... 4096)
        assertEquals(4 + 10 * 14, lines.size(), output);
        final List<Long> expectedSizes = new ArrayList<>(List.of(0L));
        for (long s = 1; s <= 4096; s *= 2) {
            expectedSizes.add(s);
        }
        for (char section = 'B'; section <= 'K'; section++) {
            final String name = String.valueOf(section);
            final List<Long> sizes = lines.stream().filter(m -> m.group(1).equals(name))
                .map(m -> Long.parseLong(m.group(2).trim().split(" +")[0])).toList();
            assertEquals(expectedSizes, sizes, "sizes of section " + section);
        }
        for (Matcher m : lines) {
            final double seconds = Double.parseDouble(m.group(3));
            final double micros = Double.parseDouble(m.group(4));
            assertTrue(seconds >= 0 && micros > 0 && Double.isFinite(micros), m.group());
            final long size = m.group(1).equals("A") ? 0 : Long.parseLong(m.group(2).trim().split(" +")[0]);
            assertEquals(size != 0, m.group(5) != null, "bandwidth only with a payload: " + m.group());
        }
        assertTrue(output.contains("G:    4096 AMLong      ping-pong roundtrip ReqRep:"), output);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aSectionAndANonPowerOfTwoMaximumGiveAMaxStep() {
        final String output = run(2, "-warmup", "0", "-np-gb", "10", "3000", "G");
        final List<Matcher> lines = results(output);
        assertTrue(lines.stream().allMatch(m -> m.group(1).equals("G")), output);
        assertEquals(14, lines.size(), output);
        assertTrue(output.contains(" max:\n"), output);
        assertTrue(lines.get(lines.size() - 1).group(2).startsWith("   3000 AMLong      ping-pong roundtrip ReqRep"), output);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void oneRankTalksToItselfAndClientBufferNpamWorks() {
        final List<Matcher> lines = results(run(1, "-warmup", "0", "-np-cb", "-out", "-async-req", "10", "1024", "BG"));
        assertEquals(2 * 12, lines.size());
    }

    @Test
    void argumentsAreCheckedLikeGasnets() {
        final TestAmOptions d = TestAmOptions.parse();
        assertEquals(1000, d.iters());
        assertEquals(2L << 20, d.maxSize());
        assertTrue(d.inSegment() && d.sectionEnabled('A') && d.sectionEnabled('K'));
        assertEquals(TestAmOptions.DEFAULT_WARMUP_ITERS, d.warmupIters());
        assertEquals(0, TestAmOptions.parse("-warmup", "0").warmupIters());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TestAmOptions.parse("-warmup", "-3"))
            .getMessage().contains("-3"));
        assertThrows(IllegalArgumentException.class, () -> TestAmOptions.parse("-warmup"));
        final TestAmOptions o = TestAmOptions.parse("-out", "-async-req", "-np-cb", "50", "1024", "gk");
        assertEquals(TestAmOptions.PayloadMode.NEGOTIATED_CLIENT_BUFFER, o.payload());
        assertTrue(!o.inSegment() && o.asyncRequests() && o.sectionEnabled('G') && !o.sectionEnabled('H'));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TestAmOptions.parse("-bogus"))
            .getMessage().contains("-bogus"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TestAmOptions.parse("-5"))
            .getMessage().contains("-5"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TestAmOptions.parse("10", "20", "AZ"))
            .getMessage().contains("AZ"));
        assertThrows(IllegalArgumentException.class, () -> TestAmOptions.parse("ten"));
        assertThrows(IllegalArgumentException.class, () -> TestAmOptions.parse("1", "2", "A", "extra"));
    }
}
