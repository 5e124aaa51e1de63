package org.gexj.launch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The launcher's backstop removes only its job's files and says which, so a conduit leak shows in its output. */
class GexRunLeftoversTest {
    @Test
    void removesAndNamesOnlyTheFilesOfTheJob(@TempDir Path dir) throws IOException {
        Files.createFile(dir.resolve("gexj0000beef-seg-1"));
        Files.createFile(dir.resolve("gexj0000beef-am-1"));
        Files.createFile(dir.resolve("gexj0000cafe-am-0"));
        final List<String> removed = GexRun.removeLeftovers(dir, "gexj0000beef");
        assertEquals(List.of("gexj0000beef-am-1", "gexj0000beef-seg-1"), removed);
        assertFalse(Files.exists(dir.resolve("gexj0000beef-am-1")));
        assertTrue(Files.exists(dir.resolve("gexj0000cafe-am-0")), "another job's file is not touched");
        assertEquals("gexrun: removed 2 leftover file(s) of job gexj0000beef: gexj0000beef-am-1 gexj0000beef-seg-1",
            GexRun.leftoversReport("gexj0000beef", removed));
    }

    @Test
    void removesNothingWhenTheJobLeftNothing(@TempDir Path dir) throws IOException {
        Files.createFile(dir.resolve("gexj0000cafe-am-0"));
        assertEquals(List.of(), GexRun.removeLeftovers(dir, "gexj0000beef"));
        assertEquals(List.of(), GexRun.removeLeftovers(dir.resolve("missing"), "gexj0000beef"));
    }
}
