package org.gexj.smp;

import org.gexj.GexException;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/** Creates, maps and unlinks the conduit's files in /dev/shm: mode 0600, named {@code <jobId>-<kind>[-<rank>]}. */
final class SharedFiles {
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private SharedFiles() {
    }

    /** The file of {@code kind} owned by {@code rank}, e.g. {@code /dev/shm/<jobId>-am-3}. */
    static Path path(String jobId, String kind, int rank) {
        return path(jobId, kind + "-" + rank);
    }

    /** The job's file of {@code kind}, e.g. {@code /dev/shm/<jobId>-ctl}. */
    static Path path(String jobId, String kind) {
        return Smp.SHM.resolve(jobId + "-" + kind);
    }

    /**
     * Creates a new file of {@code bytes} (sparse: tmpfs allocates a page when it is first touched) and maps it.
     *
     * @throws GexException if the file exists (two jobs with one id), or the file system has less than {@code bytes}
     *                      free: touching a page tmpfs cannot allocate would kill the process with SIGBUS later
     */
    static MemorySegment create(Path path, long bytes, Arena arena) {
        try {
            final long free = Files.getFileStore(path.getParent()).getUsableSpace();
            if (free < bytes) {
                throw new GexException("cannot create " + path + " of " + bytes + " bytes: " + path.getParent()
                    + " has only " + free + " bytes free; enlarge it (docker --shm-size, mount -o remount,size=) or"
                    + " ask for less (GEX_SMP_RING_BYTES, segment size)");
            }
            Files.createFile(path, OWNER_ONLY);
        } catch (FileAlreadyExistsException e) {
            throw new GexException(path + " already exists: another job with the same GEX_JOB_ID on this host?", e);
        } catch (IOException e) {
            throw new GexException("cannot create " + path + ": " + e.getMessage(), e);
        }
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            // FileChannel.truncate only shrinks; writing the last byte sizes the file without touching the rest
            ch.write(ByteBuffer.allocate(1), bytes - 1);
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
        } catch (IOException e) {
            unlink(path);
            throw new GexException("cannot size or map " + path + " (" + bytes + " bytes): " + e.getMessage(), e);
        }
    }

    /**
     * Maps a peer's file of {@code bytes}.
     *
     * @throws GexException if it is missing or shorter (a peer of another job, or one that failed and unlinked it)
     */
    static MemorySegment map(Path path, long bytes, Arena arena) {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final long size = ch.size();
            if (size < bytes) {
                throw new GexException(path + " has " + size + " bytes, expected " + bytes);
            }
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
        } catch (IOException e) {
            throw new GexException("cannot map " + path + ": " + e, e);
        }
    }

    /** Removes the name; the memory lives on while any process maps it. Best effort, never throws. */
    static void unlink(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // the launcher removes the job's leftovers too
        }
    }

    /**
     * Removes the files of {@code jobId} left in {@code dir}: by a rank killed before it could unlink its own (its
     * peers unlink theirs on every path), or by a leak.
     *
     * @return the names of the files this call removed, sorted
     */
    static java.util.List<String> removeLeftovers(Path dir, String jobId) {
        final java.util.List<String> removed = new java.util.ArrayList<>();
        try (var files = Files.list(dir)) {
            files.filter(p -> p.getFileName().toString().startsWith(jobId + "-")).forEach(p -> {
                try {
                    if (Files.deleteIfExists(p)) {
                        removed.add(p.getFileName().toString());
                    }
                } catch (IOException ignored) {
                    // best effort: another cleaner got it, or it is not ours to delete
                }
            });
        } catch (IOException ignored) {
            // no such directory here: nothing to clean
        }
        removed.sort(null);
        return removed;
    }
}
