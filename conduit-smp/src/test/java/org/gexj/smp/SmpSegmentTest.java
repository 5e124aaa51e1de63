package org.gexj.smp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Segments are files in /dev/shm mapped by every rank: a write into a peer's mapping is the peer's memory. */
class SmpSegmentTest {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    @Test
    @Timeout(30)
    void segmentsAreCrossMappedAndMaySizeDifferently() {
        try (SmpJob job = SmpJob.open(3)) {
            final List<MemorySegment> local =
                job.onEachRank(r -> job.conduits[r].attachSegment(65536L * (r + 1)).local());
            for (int me = 0; me < 3; me++) {
                for (int peer = 0; peer < 3; peer++) {
                    assertEquals(65536L * (peer + 1), job.conduits[me].peerSegment(peer).byteSize());
                }
                assertEquals(local.get(me).address(), job.conduits[me].peerSegment(me).address(),
                    "peerSegment(myRank) is the attached segment itself");
            }
            job.conduits[0].peerSegment(1).set(LONG, 4093, 0x1122334455667788L);
            assertEquals(0x1122334455667788L, local.get(1).get(LONG, 4093), "rank 0's write in rank 1's memory");
            assertEquals(0x1122334455667788L, job.conduits[2].peerSegment(1).get(LONG, 4093), "seen by rank 2 too");
            local.get(2).set(LONG, 196600, -1L);
            assertEquals(-1L, job.conduits[0].peerSegment(2).get(LONG, 196600), "the last bytes of the largest");
            MemorySegment.copy(local.get(0), 0, job.conduits[0].peerSegment(2), 8, 64);
            assertEquals(0L, local.get(2).get(LONG, 8), "a fresh segment is zero-filled");
        }
    }

    @Test
    @Timeout(30)
    void segmentsMayExceedTwoGiB() throws IOException {
        final long bytes = 3L << 30;
        // ./gexj.sh test grows /dev/shm as root: too small is a failure of the machine's set-up, not a skip
        assertTrue(Files.getFileStore(Smp.SHM).getUsableSpace() > 2 * bytes + (1L << 30),
            "/dev/shm too small for two 3 GiB segments (mount -o remount,size=8g /dev/shm)");
        try (SmpJob job = SmpJob.open(2)) {
            final List<MemorySegment> local = job.onEachRank(r -> job.conduits[r].attachSegment(bytes).local());
            assertEquals(bytes, local.get(1).byteSize());
            // tmpfs files are sparse: only the pages touched here take memory
            job.conduits[0].peerSegment(1).set(LONG, bytes - 8, 42L);
            job.conduits[0].peerSegment(1).set(LONG, (1L << 31) + 4, 43L);
            assertEquals(42L, local.get(1).get(LONG, bytes - 8));
            assertEquals(43L, local.get(1).get(LONG, (1L << 31) + 4));
        }
    }

    @Test
    @Timeout(30)
    void misuseOfTheSegmentCallsThrows() {
        try (SmpJob job = SmpJob.open(1)) {
            final SmpConduit c = job.conduits[0];
            assertTrue(assertThrows(IllegalStateException.class, () -> c.peerSegment(0)).getMessage()
                .contains("attachSegment"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> c.attachSegment(0)).getMessage()
                .contains("0"));
            c.attachSegment(4096);
            assertTrue(assertThrows(IllegalStateException.class, () -> c.attachSegment(4096)).getMessage()
                .contains("already attached a segment of 4096 bytes"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> c.peerSegment(1)).getMessage()
                .contains("[0, 1)"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> c.peerSegment(-1)).getMessage()
                .contains("-1"));
        }
    }
}
