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
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestQueueOutputTest {
    static String run(int ranks, Map<String, String> env, String... args) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        InProcessJob.run(ranks, Duration.ofSeconds(120), env, client -> assertEquals(0,
            TestQueue.run(client, args, client.rank() == 0 ? out : new PrintStream(new ByteArrayOutputStream()))));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** The table after {@code title}: header of depths, then rows of payload and one time per depth. */
    static List<String[]> table(String output, String title) {
        final String[] lines = output.split("\n");
        int i = 0;
        while (!lines[i].equals(title)) {
            i++;
        }
        assertEquals("--------------------", lines[i + 1]);
        final List<String[]> rows = new ArrayList<>();
        for (int r = i + 3; r < lines.length && !lines[r].isBlank(); r++) {
            rows.add(lines[r].trim().split(" +"));
        }
        return rows;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void amLongImplicitPrintsADepthByPayloadTable() {
        final String output = run(2, Map.of("GEX_CONDUIT", "smp"), "-l", "-i", "10", "8", "1024");
        assertTrue(output.contains("Running queue test with local addr outside segment, iters=10, maxdepth=8, sz: 1...1024"), output);
        assertTrue(output.startsWith("Timer granularity: <= "), output);
        final List<String[]> rows = table(output, "AM RequestLong0 (implicit handle for LC)");
        assertEquals(List.of("1", "2", "4", "8"), List.of(rows.get(0)), output);
        assertEquals(11, rows.size() - 1, output);
        long payload = 1;
        for (String[] row : rows.subList(1, rows.size())) {
            assertEquals(Long.toString(payload), row[0]);
            assertEquals(5, row.length, String.join(" ", row));
            for (int c = 1; c < row.length; c++) {
                final double us = Double.parseDouble(row[c]);
                assertTrue(us > 0 && Double.isFinite(us), String.join(" ", row));
            }
            payload *= 2;
        }
        assertTrue(!output.contains("RequestMedium") && !output.contains("RMA"), output);
        assertEquals(1, output.split("AM RequestLong0 \\(implicit", -1).length - 1, "the warm-up pass is silent:\n" + output);
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyDefaultSectionRunsOverRmaOverAmToo() {
        final String output = run(2, Map.of("GEX_CONDUIT", "smp", "GEX_RMA_OVER_AM", "1"), "-warmup", "0", "-in", "2", "4", "256");
        for (String title : List.of("RMA PutNB/bulk", "RMA PutNBI/bulk", "RMA PutNB", "RMA GetNB", "RMA PutNBI",
            "RMA GetNBI", "RMA PutNBVal", "RMA PutNBIVal", "RMA PutBlocking (BLOCKING - represents round-trip latency)",
            "RMA GetBlocking (BLOCKING - represents round-trip latency)", "AM RequestShort0",
            "AM RequestMedium0 (blocking for LC)", "AM RequestMedium0 (explicit handle for LC)",
            "AM RequestMedium0 (implicit handle for LC)", "AM RequestLong0 (blocking for LC)",
            "AM RequestLong0 (explicit handle for LC)", "AM RequestLong0 (implicit handle for LC)")) {
            final List<String[]> rows = table(output, title);
            assertTrue(rows.size() > 1, title + " has rows:\n" + output);
        }
        assertEquals(2, table(output, "AM RequestShort0").size(), "AMShort runs size 1 only");
        assertEquals(5, table(output, "RMA PutNBVal").size(), "values go to 8 bytes");
    }

    @Test
    void argumentsFollowGasnet() {
        final TestQueueOptions d = TestQueueOptions.parse();
        assertEquals(10, d.iters());
        assertEquals(1024, d.maxDepth());
        assertEquals(2 * 1024 * 1024, d.maxSize());
        assertTrue(d.puts() && d.gets() && d.amShort() && d.amMedium() && d.amLong());
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
