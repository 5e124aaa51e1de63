package org.gexj.testrma;

import org.gexj.launch.InProcessJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * testfaddperf prints GASNet's lines: sections A-P, a latency and a throughput per type and operation, in GASNet's
 * order, on smp (CPU atomics) and over AM; the counter ends where the operations put it; a section selection runs
 * only those; bad arguments print the usage.
 */
class TestFaddPerfOutputTest {
    private static final Pattern ROW = Pattern.compile("([A-P]):  0 : +(\\d+) iters, (?:latency +(\\d+) us total, +"
        + "([\\d.]+) us ave\\.|throughput +([\\d.]+) ops/sec) \\((U32|U64|FLT|DBL) (F?ADD) (latency|throughput)\\)");

    private static String run(Map<String, String> environment, int expectedExit, String... args) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        InProcessJob.run(2, Duration.ofSeconds(120), environment,
            client -> assertEquals(expectedExit, TestFaddPerf.run(client, args, client.rank() == 0 ? out : sink)));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void everySectionHasGasnetsLine() {
        for (Map<String, String> environment : java.util.List.of(Map.of("GEX_CONDUIT", "smp"),
            Map.of("GEX_CONDUIT", "smp", "GEX_AD_OVER_AM", "1"))) {
            final String output = run(environment, 0, "-warmup", "20", "200");
            assertTrue(output.startsWith("Running 200 iterations of remote atomic (F)ADD perfomance tests"), output);
            final Matcher m = ROW.matcher(output);
            final String[] types = {"U32", "U64", "FLT", "DBL"};
            int rows = 0;
            while (m.find()) {
                assertEquals((char) ('A' + rows), m.group(1).charAt(0), output);
                assertEquals("200", m.group(2), m.group());
                assertEquals(types[rows / 4], m.group(6), m.group());
                assertEquals(rows % 4 < 2 ? "FADD" : "ADD", m.group(7), m.group());
                assertEquals(rows % 2 == 0 ? "latency" : "throughput", m.group(8), m.group());
                assertTrue(Double.parseDouble(rows % 2 == 0 ? m.group(4) : m.group(5)) > 0, m.group());
                rows++;
            }
            assertEquals(16, rows, environment + ":\n" + output);
        }
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void sectionsAndBadArguments() {
        final String output = run(Map.of("GEX_CONDUIT", "smp"), 0, "-s", "-warmup", "0", "100", "CJ");
        final Matcher m = ROW.matcher(output);
        assertTrue(m.find(), output);
        assertEquals("C", m.group(1));
        assertTrue(m.find(), output);
        assertEquals("J", m.group(1));
        assertTrue(!m.find(), output);
        assertTrue(run(Map.of("GEX_CONDUIT", "smp"), 1, "-x").contains("Usage: testfaddperf"));
        assertTrue(run(Map.of("GEX_CONDUIT", "smp"), 1, "-warmup", "-5").contains("Usage: testfaddperf"));
        assertTrue(run(Map.of("GEX_CONDUIT", "smp"), 1, "10", "A", "extra").contains("Usage: testfaddperf"));
    }
}
