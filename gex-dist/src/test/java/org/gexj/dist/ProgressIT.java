package org.gexj.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * testam and testqueue show progress on stderr (gexrun asks for it when its stderr is a terminal; GEX_PROGRESS
 * forces it either way) and never on stdout, whose lines stay GASNet's.
 */
class ProgressIT {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void testamShowsProgressOnStderrOnly() throws Exception {
        final String[] out = run("1", "testam", "300", "4096", "B");
        assertTrue(out[1].contains("testam B: 0 AMMedium ping-pong roundtrip ReqRep"), out[1]);
        assertTrue(out[1].contains("%\r"), out[1]);
        assertCleanStdout(out[0], "B:");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void testqueueShowsProgressOnStderrOnly() throws Exception {
        final String[] out = run("1", "testqueue", "-l", "-i", "50", "16", "1024");
        assertTrue(out[1].contains("testqueue gex_AM_RequestLong0 (implicit handle for LC): size 1 depth 1"), out[1]);
        assertCleanStdout(out[0], "1024 ");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void noProgressWhenNotAsked() throws Exception {
        final String[] out = run("0", "testam", "100", "1024", "B");
        assertFalse(out[1].contains("%\r"), out[1]);
        assertCleanStdout(out[0], "B:");
    }

    private static void assertCleanStdout(String stdout, String resultPrefix) {
        assertFalse(stdout.contains("\r"), stdout);
        assertFalse(stdout.contains("%"), stdout);
        assertTrue(stdout.lines().anyMatch(l -> l.startsWith(resultPrefix)), stdout);
    }

    /** gexrun with GEX_PROGRESS={@code progress}: its stdout and stderr, apart. */
    private static String[] run(String progress, String... program) throws Exception {
        final File stdout = File.createTempFile("gexj-progress", ".out");
        final File stderr = File.createTempFile("gexj-progress", ".err");
        try {
            final List<String> command = new ArrayList<>(List.of(Jobs.GEXRUN.toString(), "-n", "2",
                "-E", "GEX_PROGRESS=" + progress));
            command.addAll(List.of(program));
            final Process p = new ProcessBuilder(command).redirectOutput(stdout).redirectError(stderr).start();
            assertTrue(p.waitFor(100, TimeUnit.SECONDS), "not done");
            final String[] out = {Files.readString(stdout.toPath(), StandardCharsets.UTF_8),
                Files.readString(stderr.toPath(), StandardCharsets.UTF_8)};
            assertEquals(0, p.exitValue(), out[0] + out[1]);
            return out;
        } finally {
            stdout.delete();
            stderr.delete();
        }
    }
}
