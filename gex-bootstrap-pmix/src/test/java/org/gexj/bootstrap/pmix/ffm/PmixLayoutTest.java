package org.gexj.bootstrap.pmix.ffm;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The struct layouts of {@link PmixH} against libpmix itself: the library's own {@code PMIx_Value_load} and
 * {@code PMIx_Info_load} write the structs, Java reads them with its layouts, and what Java writes equals what the
 * library writes. Needs no PMIx server (./gexj.sh installs libpmix2, so this runs everywhere the suite does).
 */
class PmixLayoutTest {
    @BeforeAll
    static void libraryLoads() {
        assertNull(PmixH.loadFailure(), () -> "libpmix.so.2 must load: " + PmixH.loadFailure());
        assertTrue(PmixH.version().contains("4."), PmixH.version());
    }

    @Test
    void sizesAndOffsetsAreThoseOfTheX8664Header() {
        assertEquals(260, PmixH.PMIX_PROC.byteSize());
        assertEquals(256, PmixH.PROC_RANK);
        assertEquals(16, PmixH.PMIX_BYTE_OBJECT_T.byteSize());
        assertEquals(32, PmixH.PMIX_VALUE.byteSize());
        assertEquals(8, PmixH.VALUE_DATA);
        assertEquals(552, PmixH.PMIX_INFO.byteSize());
        assertEquals(512, PmixH.INFO_FLAGS);
        assertEquals(520, PmixH.INFO_VALUE);
    }

    @Test
    void aByteObjectTheLibraryLoadsReadsBackAndOursIsLaidOutAlike() {
        try (Arena arena = Arena.ofConfined()) {
            final byte[] data = {1, 2, 3, 4, 5, 6, 7, 8, 9, -1};
            final MemorySegment bytes = arena.allocate(data.length);
            MemorySegment.copy(data, 0, bytes, ValueLayout.JAVA_BYTE, 0, data.length);
            final MemorySegment bo = arena.allocate(PmixH.PMIX_BYTE_OBJECT_T);
            bo.set(ValueLayout.ADDRESS, PmixH.BO_BYTES, bytes);
            bo.set(ValueLayout.JAVA_LONG, PmixH.BO_SIZE, data.length);
            final MemorySegment loaded = arena.allocate(PmixH.PMIX_VALUE);
            assertEquals(PmixH.PMIX_SUCCESS, PmixH.valueLoad(loaded, bo, PmixH.PMIX_BYTE_OBJECT));
            try {
                assertEquals(PmixH.PMIX_BYTE_OBJECT, PmixH.valueType(loaded));
                assertArrayEquals(data, PmixH.byteObject(loaded), "the library copied the bytes where Java reads them");
            } finally {
                PmixH.valueDestruct(loaded);
            }
            final MemorySegment ours = arena.allocate(PmixH.PMIX_VALUE);
            PmixH.setByteObject(ours, bytes);
            assertArrayEquals(data, PmixH.byteObject(ours));
            assertThrows(IllegalStateException.class, () -> PmixH.uint32(ours), "a byte object is no uint32");
        }
    }

    @Test
    void infosWrittenByJavaEqualTheLibrarysByteForByte() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment timeout = arena.allocate(ValueLayout.JAVA_INT);
            timeout.set(ValueLayout.JAVA_INT, 0, 300);
            final MemorySegment library = arena.allocate(PmixH.PMIX_INFO);
            assertEquals(PmixH.PMIX_SUCCESS, PmixH.infoLoad(library, arena.allocateFrom(PmixH.PMIX_TIMEOUT), timeout,
                PmixH.PMIX_INT));
            final MemorySegment java = arena.allocate(PmixH.PMIX_INFO);
            PmixH.setIntInfo(java, PmixH.PMIX_TIMEOUT, 300);
            assertEquals(-1, library.mismatch(java), "PMIX_TIMEOUT info differs at byte " + library.mismatch(java));

            final MemorySegment yes = arena.allocate(ValueLayout.JAVA_BYTE);
            yes.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
            final MemorySegment libraryBool = arena.allocate(PmixH.PMIX_INFO);
            assertEquals(PmixH.PMIX_SUCCESS, PmixH.infoLoad(libraryBool, arena.allocateFrom(PmixH.PMIX_COLLECT_DATA),
                yes, PmixH.PMIX_BOOL));
            final MemorySegment javaBool = arena.allocate(PmixH.PMIX_INFO);
            PmixH.setBoolInfo(javaBool, PmixH.PMIX_COLLECT_DATA, true);
            assertEquals(-1, libraryBool.mismatch(javaBool),
                "PMIX_COLLECT_DATA info differs at byte " + libraryBool.mismatch(javaBool));
        }
    }

    @Test
    void uint32AndStringValuesReadBack() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment n = arena.allocate(ValueLayout.JAVA_INT);
            n.set(ValueLayout.JAVA_INT, 0, 0xFFFF_FFF0);
            final MemorySegment v = arena.allocate(PmixH.PMIX_VALUE);
            assertEquals(PmixH.PMIX_SUCCESS, PmixH.valueLoad(v, n, PmixH.PMIX_UINT32));
            assertEquals(0xFFFF_FFF0, PmixH.uint32(v));
            final MemorySegment s = arena.allocate(PmixH.PMIX_VALUE);
            // PMIx_Value_load takes a string itself (it strdup()s data), not a pointer to it
            assertEquals(PmixH.PMIX_SUCCESS, PmixH.valueLoad(s, arena.allocateFrom("0,1,2,3"), PmixH.PMIX_STRING));
            try {
                assertEquals("0,1,2,3", PmixH.string(s));
            } finally {
                PmixH.valueDestruct(s);
            }
        }
    }

    @Test
    void procsCarryNamespaceAndRankAndTooLongNamesAreRefusedNamingThem() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment proc = arena.allocate(PmixH.PMIX_PROC);
            PmixH.setProc(proc, "slurm.pmix.12.0", PmixH.PMIX_RANK_WILDCARD);
            assertEquals("slurm.pmix.12.0", PmixH.procNamespace(proc));
            assertEquals(0xFFFF_FFFE, PmixH.procRank(proc));
            final String longName = "n".repeat(256);
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PmixH.setProc(proc, longName, 0));
            assertTrue(e.getMessage().contains("255"), e.getMessage());
        }
    }

    @Test
    void errorStringsComeFromTheLibrary() {
        assertEquals("TIMEOUT", PmixH.errorString(PmixH.PMIX_ERR_TIMEOUT)); // PMIx 4.2.2's own words
        assertEquals("SUCCESS", PmixH.errorString(PmixH.PMIX_SUCCESS));
    }
}
