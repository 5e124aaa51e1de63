package org.gexj.smp;

import org.gexj.GexException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

import static org.gexj.spi.Conduit.ALL_CHANNELS;
import static org.gexj.spi.Conduit.REQUEST;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The conduit's files: owner-only, and unlinked once mapped, so nothing of a job stays in /dev/shm. */
class SmpFilesTest {
    @Test
    @Timeout(30)
    void noFileOfTheJobRemainsAfterOpenAttachOrClose() {
        final String jobId;
        try (SmpJob job = SmpJob.open(4)) {
            jobId = job.jobId;
            assertEquals(List.of(), job.files(), "after open");
            job.onEachRank(r -> job.conduits[r].attachSegment(1 << 20));
            assertEquals(List.of(), job.files(), "after attachSegment");
            // the memory outlives the names
            job.conduits[3].peerSegment(0).set(ValueLayout.JAVA_INT, 0, 7);
            assertEquals(7, job.conduits[0].peerSegment(0).get(ValueLayout.JAVA_INT, 0));
            Frames.send(job.conduits[1], 2, REQUEST, new byte[] {9});
            assertEquals(1, new Frames.Recorder().drain(job.conduits[2]).size());
        }
        assertEquals(List.of(), SmpJob.filesOf(jobId), "after close");
    }

    @Test
    void filesAreCreatedOwnerOnlyAndSized() throws IOException {
        final Path path = SharedFiles.path(SmpJob.newJobId(), "am", 0);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment memory = SharedFiles.create(path, 3 * 4096, arena);
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(path)));
            assertEquals(3 * 4096, Files.size(path));
            assertEquals(3 * 4096, memory.byteSize());
            final GexException again = assertThrows(GexException.class, () -> SharedFiles.create(path, 4096, arena));
            assertTrue(again.getMessage().contains("already exists"), again.getMessage());
            final GexException tooShort = assertThrows(GexException.class,
                () -> SharedFiles.map(path, 4 * 4096, arena));
            assertTrue(tooShort.getMessage().contains("12288 bytes, expected 16384"), tooShort.getMessage());
        } finally {
            SharedFiles.unlink(path);
        }
        final GexException missing = assertThrows(GexException.class,
            () -> SharedFiles.map(path, 4096, Arena.ofAuto()));
        assertTrue(missing.getMessage().contains(path.toString()), missing.getMessage());
    }

    @Test
    void aFileLargerThanTheFreeSpaceIsRefusedUpFront() throws IOException {
        final Path path = SharedFiles.path(SmpJob.newJobId(), "seg", 0);
        final long tooMuch = Files.getFileStore(Smp.SHM).getUsableSpace() + (1L << 30);
        final GexException e = assertThrows(GexException.class,
            () -> SharedFiles.create(path, tooMuch, Arena.ofAuto()));
        assertTrue(e.getMessage().contains("free"), e.getMessage());
        assertTrue(Files.notExists(path));
    }

    @Test
    @Timeout(30)
    void closeIsIdempotentAndLaterCallsThrowInsteadOfTouchingUnmappedMemory() {
        final SmpJob job = SmpJob.open(2, rank -> Map.of());
        job.close();
        assertDoesNotThrow(job::close);
        final SmpConduit c = job.conduits[0];
        assertThrows(IllegalStateException.class, () -> c.claim(new org.gexj.spi.Claim(), 1, REQUEST, 8));
        assertThrows(IllegalStateException.class, () -> c.poll((ch, b, o, l) -> { }, ALL_CHANNELS, 1));
        assertThrows(IllegalStateException.class, c::barrierNotify);
        assertThrows(IllegalStateException.class, c::barrierTry);
        assertThrows(IllegalStateException.class, () -> c.attachSegment(4096));
    }
}
