package org.gexj.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's example program is real: the same text compiles as {@code Ring} and runs under gexrun. */
class ReadmeExampleIT {
    private static final Pattern EXAMPLE = Pattern.compile("## A program\\n\\n```java\\n(.*?)```", Pattern.DOTALL);

    @Test
    void readmeShowsTheCompiledExample() throws Exception {
        final Matcher m = EXAMPLE.matcher(Files.readString(Jobs.ROOT.resolve("README.md")));
        assertTrue(m.find(), "README has no '## A program' java block");
        final String compiled = Files.readString(Jobs.ROOT.resolve("gex-dist/src/test/java/Ring.java"));
        assertEquals(compiled.strip(), m.group(1).strip(), "README example and gex-dist/src/test/java/Ring.java differ");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void exampleRunsOnThreeRanks() throws Exception {
        final Path classes = Jobs.ROOT.resolve("gex-dist/target/test-classes");
        final Jobs job = Jobs.start(Map.of("GEX_CLASSPATH", classes.toString()), "-n", "3", "--", "Ring");
        assertTrue(job.process.waitFor(90, TimeUnit.SECONDS), "Ring did not finish: " + job.output());
        assertEquals(0, job.process.exitValue(), job.output());
        for (int r = 0; r < 3; r++) {
            // rank r-1 sent 41 to r, got 42 back and put it at offset 0 of r's segment
            assertTrue(job.lines.contains("rank " + r + ": 42"), "rank " + r + " line missing:\n" + job.output());
        }
    }
}
