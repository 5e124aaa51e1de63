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
 * testratomic, GASNet's remote-atomics correctness test, passes on smp's CPU atomics and over AM at 3 ranks, printing
 * GASNet's sections for every type in GASNet's order.
 */
class TestRatomicOutputTest {
    @Test
    @Timeout(value = 170, unit = TimeUnit.SECONDS)
    void everyTypeAndSectionPassesDirectAndOverActiveMessages() {
        for (Map<String, String> environment : List.of(Map.of("GEX_CONDUIT", "smp"),
            Map.of("GEX_CONDUIT", "smp", "GEX_AD_OVER_AM", "1"))) {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
            InProcessJob.run(3, Duration.ofSeconds(150), environment,
                client -> assertEquals(0, TestRatomic.run(client, new String[] {"60", "7"}, out)));
            final String output = bytes.toString(StandardCharsets.UTF_8);
            assertTrue(output.contains("done. (detected 0 errors)"), environment + ":\n" + output);
            assertTrue(!output.contains("ERROR"), output);
            int at = 0;
            for (String type : new String[] {"uint32_t", "int32_t", "uint64_t", "int64_t", "float", "double"}) {
                at = output.indexOf("  Tests for type " + type, at);
                assertTrue(at >= 0, type + " missing or out of order:\n" + output);
                for (String section : new String[] {"Flags test", "ring test (SET)", "ring test (ADD + SET)",
                    "Central-counter concurrent updates test (FCAS)", "Randomized ops test"}) {
                    assertTrue(output.indexOf(section, at) >= 0, type + ": " + section + "\n" + output);
                }
            }
        }
    }
}
