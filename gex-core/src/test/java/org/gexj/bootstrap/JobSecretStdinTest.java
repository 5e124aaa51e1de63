package org.gexj.bootstrap;

import org.gexj.GexException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayInputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** GEX_JOB_SECRET=-: the secret is the first line of stdin, read without taking what follows it, never forever. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class JobSecretStdinTest {
    @Test
    void theFirstLineIsTheSecretAndTheRestStaysForTheProgram() throws Exception {
        final ByteArrayInputStream in = new ByteArrayInputStream("00ff\nthe program's input\n"
            .getBytes(StandardCharsets.US_ASCII));
        assertEquals("00ff", JobSecret.firstLine(in, 5000));
        assertEquals("the program's input\n", new String(in.readAllBytes(), StandardCharsets.US_ASCII));
    }

    @Test
    void noLineWithinTheTimeoutFailsNamingTheSetting() throws Exception {
        try (PipedOutputStream writer = new PipedOutputStream();
             PipedInputStream silent = new PipedInputStream(writer)) {
            final long start = System.nanoTime();
            final GexException e = assertThrows(GexException.class, () -> JobSecret.firstLine(silent, 300));
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "waited for the timeout only");
            assertEquals("GEX_JOB_SECRET=-: no line on stdin within 300 ms (gexrun --hosts writes the job secret"
                + " there)", e.getMessage());
        }
    }

    @Test
    void anEmptyOrEndlessStdinFails() {
        assertEquals("GEX_JOB_SECRET=-: cannot read the secret from stdin: it ended before the first line did",
            assertThrows(GexException.class, () -> JobSecret.firstLine(new ByteArrayInputStream(new byte[0]), 5000))
                .getMessage());
        assertEquals("GEX_JOB_SECRET=-: cannot read the secret from stdin: its first line is longer than 1024 bytes",
            assertThrows(GexException.class, () -> JobSecret.firstLine(new ByteArrayInputStream(new byte[5000]), 5000))
                .getMessage());
    }
}
