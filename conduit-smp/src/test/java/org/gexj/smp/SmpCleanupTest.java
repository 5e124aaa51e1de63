package org.gexj.smp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The provider's cleanup, which gexrun calls after every job, removes only its job's files and says which, so a
 * conduit leak shows in the launcher's output.
 */
class SmpCleanupTest {
    @Test
    void removesAndNamesOnlyTheFilesOfTheJob(@TempDir Path dir) throws IOException {
        Files.createFile(dir.resolve("gexj0000beef-seg-1"));
        Files.createFile(dir.resolve("gexj0000beef-am-1"));
        Files.createFile(dir.resolve("gexj0000cafe-am-0"));
        Files.createFile(dir.resolve("gexj0000beefy-am-0"));
        final List<String> removed = SharedFiles.removeLeftovers(dir, "gexj0000beef");
        assertEquals(List.of("gexj0000beef-am-1", "gexj0000beef-seg-1"), removed);
        assertFalse(Files.exists(dir.resolve("gexj0000beef-am-1")));
        assertTrue(Files.exists(dir.resolve("gexj0000cafe-am-0")), "another job's file is not touched");
        assertTrue(Files.exists(dir.resolve("gexj0000beefy-am-0")), "a job whose id extends this one's is not touched");
    }

    @Test
    void removesNothingWhenTheJobLeftNothing(@TempDir Path dir) throws IOException {
        Files.createFile(dir.resolve("gexj0000cafe-am-0"));
        assertEquals(List.of(), SharedFiles.removeLeftovers(dir, "gexj0000beef"));
        assertEquals(List.of(), SharedFiles.removeLeftovers(dir.resolve("missing"), "gexj0000beef"));
    }

    @Test
    void theProviderCleansDevShm() throws IOException {
        final String job = SmpJob.newJobId();
        Files.createFile(Smp.SHM.resolve(job + "-seg-0"));
        assertEquals(List.of(job + "-seg-0"), new SmpConduitProvider().cleanup(job, List.of()));
        assertEquals(List.of(), new SmpConduitProvider().cleanup(job, List.of()));
    }
}
