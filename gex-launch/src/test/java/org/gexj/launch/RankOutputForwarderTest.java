package org.gexj.launch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RankOutputForwarderTest {
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aLauncherLineNeverLandsInsideARanksLine() throws Exception {
        final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        final RankOutputForwarder forwarder = new RankOutputForwarder(
            new PrintStream(outBytes, true, StandardCharsets.UTF_8),
            new PrintStream(errBytes, true, StandardCharsets.UTF_8));
        // as a JVM does: the start of the line, a pause, then the rest
        final Process rank = new ProcessBuilder("sh", "-c",
            "printf 'Exception in thread \"main\" ' >&2; echo 'to stdout'; sleep 0.5; echo 'java.lang.Error: x' >&2;"
                + " printf 'no newline at the end'").start();
        forwarder.forward(0, rank);
        Thread.sleep(200);
        forwarder.launcherLine("gexrun: rank 1 was killed by signal 9; ending the job");
        assertTrue(rank.waitFor(10, TimeUnit.SECONDS));
        forwarder.drain();

        assertEquals(List.of("gexrun: rank 1 was killed by signal 9; ending the job",
                "Exception in thread \"main\" java.lang.Error: x"),
            errBytes.toString(StandardCharsets.UTF_8).lines().toList());
        assertEquals(List.of("to stdout", "no newline at the end"),
            outBytes.toString(StandardCharsets.UTF_8).lines().toList());
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aRankWritingWithoutNewlinesIsCopiedInBoundedPieces() throws Exception {
        final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        final RankOutputForwarder forwarder = new RankOutputForwarder(
            new PrintStream(outBytes, true, StandardCharsets.UTF_8), System.err);
        final Process rank = new ProcessBuilder("sh", "-c", "head -c 300000 /dev/zero | tr '\\0' x").start();
        forwarder.forward(0, rank);
        assertTrue(rank.waitFor(10, TimeUnit.SECONDS));
        forwarder.drain();
        final String copied = outBytes.toString(StandardCharsets.UTF_8);
        assertEquals(300000, copied.strip().length());
        assertTrue(copied.strip().chars().allMatch(c -> c == 'x'));
    }
}
