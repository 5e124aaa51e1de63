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

/** testpwc prints a row per section and size with a positive latency; bad arguments name the value. */
class TestPwcOutputTest {
    private static final Pattern ROW = Pattern.compile("([A-E]): +(\\d+) (.+?) +([\\d.]+) us");

    private static String run(String conduit, int expectedExit, String... args) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        InProcessJob.run(2, Duration.ofSeconds(120), Map.of("GEX_CONDUIT", conduit),
            client -> assertEquals(expectedExit, TestPwc.run(client, args, client.rank() == 0 ? out : sink)));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void everySectionAndSizeHasARow() {
        for (String conduit : new String[] {"smp"}) {
            final String output = run(conduit, 0, "50", "64", "10");
            final Matcher m = ROW.matcher(output);
            int rows = 0;
            while (m.find()) {
                final long size = Long.parseLong(m.group(2));
                assertEquals(1L << (rows % 7), size, conduit + ": row " + rows + " of\n" + output);
                assertEquals("ABCDE".charAt(rows / 7), m.group(1).charAt(0), output);
                assertTrue(Double.parseDouble(m.group(4)) > 0, m.group());
                rows++;
            }
            assertEquals(5 * 7, rows, conduit + ":\n" + output);
        }
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void badArgumentsAreNamed() {
        assertTrue(run("smp", 1, "0").contains("iters 0"));
        assertTrue(run("smp", 1, "10", "64", "-1").contains("warmup -1"));
        assertTrue(run("smp", 1, "1", "2", "3", "4").contains("not 4"));
    }
}
