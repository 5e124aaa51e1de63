package org.gexj.ofi;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes the shared-memory regions a dead process left under this process's id. libfabric's shm provider (1.17) names
 * an endpoint's region {@code /dev/shm/<pid>:<domain>:<endpoint>} and cannot create it while a file of that name
 * exists ({@code fi_enable}: {@code -FI_EBUSY}); a rank killed by a signal, or one whose endpoint is left open after a
 * failure, never unlinks its region, so once process ids wrap (32768 here, reached within one test suite) a new rank
 * meets an old region. Before this process's first shm endpoint no region of its id can be its own, so every such
 * file is a leftover. The launcher also removes its ended ranks' regions after each job ({@link #removeEnded}), so a
 * killed rank's 16 MiB stays in /dev/shm (memory) only until its job ends.
 */
final class ShmLeftovers {
    static final Path SHM = Path.of("/dev/shm");
    private static final ShmLeftovers PROCESS = new ShmLeftovers(SHM, ProcessHandle.current().pid());

    private final Path directory;
    private final long pid;
    private boolean swept;

    ShmLeftovers(Path directory, long pid) {
        this.directory = directory;
        this.pid = pid;
    }

    /** Once per process, before its first shm endpoint: deletes {@code /dev/shm/<this pid>:*}. @return how many */
    static int removeOnce() {
        return PROCESS.sweepOnce();
    }

    /**
     * The first call deletes the leftovers; every call returns only once they are gone. Ranks of one process (the
     * in-process jobs) open their endpoints at the same time: one that went on while another's sweep was still
     * running could meet a leftover of its name ({@code -FI_EBUSY}), or have its new region deleted by that sweep.
     *
     * @return how many this call deleted
     */
    synchronized int sweepOnce() {
        if (swept) {
            return 0;
        }
        swept = true;
        return remove(directory, pid).size();
    }

    /**
     * Deletes the regions of the processes {@code pids} that no longer run (a live process, or a new one that took
     * the id, keeps its regions).
     *
     * @return the paths deleted
     */
    static List<String> removeEnded(Path directory, List<Long> pids) {
        final List<String> removed = new ArrayList<>();
        for (long pid : pids) {
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                continue;
            }
            removed.addAll(remove(directory, pid));
        }
        return removed;
    }

    /** Deletes the files of {@code directory} named {@code <pid>:...}. @return their paths */
    static List<String> remove(Path directory, long pid) {
        final List<String> removed = new ArrayList<>();
        try (DirectoryStream<Path> regions = Files.newDirectoryStream(directory, pid + ":*")) {
            for (Path region : regions) {
                if (Files.deleteIfExists(region)) {
                    removed.add(region.toString());
                }
            }
        } catch (IOException e) {
            // no /dev/shm, or not ours to delete: fi_enable then reports the name it cannot create
            return removed;
        }
        return removed;
    }
}
