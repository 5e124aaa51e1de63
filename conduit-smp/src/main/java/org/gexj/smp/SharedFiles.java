package org.gexj.smp;

import org.gexj.GexException;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/** Creates, maps and unlinks the conduit's files in /dev/shm (mode 0600, named after the job). */
final class SharedFiles {
    private SharedFiles() {
    }

    static Path path(String jobId, String kind, int rank) {
        return Smp.SHM.resolve(jobId + "-" + kind + "-" + rank);
    }

    /** Creates a new zero-filled file of {@code bytes} and maps it into {@code arena}. */
    static MemorySegment create(Path path, long bytes, Arena arena) {
        try {
            Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (FileAlreadyExistsException e) {
            throw new GexException(path + " already exists: another job with the same GEX_JOB_ID?", e);
        } catch (IOException e) {
            throw new GexException("cannot create " + path + ": " + e.getMessage(), e);
        }
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.truncate(bytes);
            // truncate only shrinks; writing the last byte sizes the file without touching the rest
            ch.write(java.nio.ByteBuffer.wrap(new byte[1]), bytes - 1);
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
        } catch (IOException e) {
            unlink(path);
            throw new GexException("cannot size or map " + path + " (" + bytes + " bytes): " + e.getMessage(), e);
        }
    }

    /** Maps a peer's existing file. */
    static MemorySegment map(Path path, long bytes, Arena arena) {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final long size = ch.size();
            if (size < bytes) {
                throw new GexException(path + " has " + size + " bytes, expected " + bytes);
            }
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
        } catch (IOException e) {
            throw new GexException("cannot map " + path + ": " + e.getMessage(), e);
        }
    }

    static void unlink(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // best effort: the launcher removes the job's leftovers too
        }
    }
}
