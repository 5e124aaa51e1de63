package org.gexj.ofi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

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
        assertEquals(List.of(dir.resolve("4242:0:0").toString(), dir.resolve("4242:1:0").toString()),
            ShmLeftovers.remove(dir, 4242).stream().sorted().toList());
        assertFalse(Files.exists(dir.resolve("4242:0:0")));
        assertFalse(Files.exists(dir.resolve("4242:1:0")));
        for (String kept : new String[] {"42420:0:0", "424:0:0", "7:0:0", "gexj-4242-seg"}) {
            assertTrue(Files.exists(dir.resolve(kept)), kept);
        }
        assertEquals(List.of(), ShmLeftovers.remove(dir, 4242));
    }

    /** After a job, the regions of its ended ranks go; those of a live process stay even when it was named. */
    @Test
    void removesTheRegionsOfEndedProcessesOnly(@TempDir Path dir) throws Exception {
        final Process ended = new ProcessBuilder("true").start();
        ended.waitFor();
        final long live = ProcessHandle.current().pid();
        Files.createFile(dir.resolve(ended.pid() + ":0:0"));
        Files.createFile(dir.resolve(live + ":0:0"));
        assertEquals(List.of(dir.resolve(ended.pid() + ":0:0").toString()),
            ShmLeftovers.removeEnded(dir, List.of(ended.pid(), live)));
        assertTrue(Files.exists(dir.resolve(live + ":0:0")));
    }

    /**
     * Ranks of one process sweep at once: none may go on to create its region while leftovers remain. Checked to fail
     * when the later callers return at once, as they did before the sweep was synchronized.
     */
    @Test
    void everyCallerReturnsOnlyAfterTheSweep(@TempDir Path dir) throws Exception {
        for (int i = 0; i < 3000; i++) {
            Files.createFile(dir.resolve("4242:0:" + i));
        }
        final ShmLeftovers leftovers = new ShmLeftovers(dir, 4242);
        final int callers = 4;
        final CyclicBarrier start = new CyclicBarrier(callers);
        final ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            final List<Future<Integer>> removed = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                removed.add(pool.submit(() -> {
                    start.await();
                    final int n = leftovers.sweepOnce();
                    // what this caller would now create its region beside
                    try (Stream<Path> left = Files.list(dir)) {
                        assertEquals(0, left.count(), "leftovers remain when a caller returns");
                    }
                    return n;
                }));
            }
            int total = 0;
            for (Future<Integer> f : removed) {
                total += f.get(30, TimeUnit.SECONDS);
            }
            assertEquals(3000, total);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aMissingDirectoryRemovesNothing(@TempDir Path dir) {
        assertEquals(List.of(), ShmLeftovers.remove(dir.resolve("absent"), 1));
    }
}
