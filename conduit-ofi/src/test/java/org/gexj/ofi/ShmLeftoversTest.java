package org.gexj.ofi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShmLeftoversTest {
    /** Only the regions named after the given process id go: other processes' regions and other files stay. */
    @Test
    void removesTheRegionsOfOneProcessIdOnly(@TempDir Path dir) throws IOException {
        for (String name : new String[] {"4242:0:0", "4242:1:0", "42420:0:0", "424:0:0", "7:0:0", "gexj-4242-seg"}) {
            Files.createFile(dir.resolve(name));
        }
        assertEquals(2, ShmLeftovers.remove(dir, 4242));
        assertFalse(Files.exists(dir.resolve("4242:0:0")));
        assertFalse(Files.exists(dir.resolve("4242:1:0")));
        for (String kept : new String[] {"42420:0:0", "424:0:0", "7:0:0", "gexj-4242-seg"}) {
            assertTrue(Files.exists(dir.resolve(kept)), kept);
        }
        assertEquals(0, ShmLeftovers.remove(dir, 4242));
    }

    @Test
    void aMissingDirectoryRemovesNothing(@TempDir Path dir) {
        assertEquals(0, ShmLeftovers.remove(dir.resolve("absent"), 1));
    }
}
