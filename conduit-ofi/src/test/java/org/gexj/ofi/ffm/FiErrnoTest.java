package org.gexj.ofi.ffm;

import org.gexj.ofi.OfiException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** fi_errno.h ({@link FiErrno}) against libfabric itself: codes, texts, and the exception a failing call throws. */
class FiErrnoTest {
    @BeforeAll
    static void libraryLoads() {
        assertNull(Fabric.loadFailure(), "libfabric.so.1 did not load");
    }

    @Test
    void strerrorGivesLibfabricsText() throws Throwable {
        // below 256 libfabric hands the code to strerror(3); above, its own table (fi_errno.h)
        assertAll(
            () -> assertEquals("No such file or directory", FiErrno.strerror(FiErrno.FI_ENOENT)),
            () -> assertEquals("Resource temporarily unavailable", FiErrno.strerror(FiErrno.FI_EAGAIN)),
            () -> assertEquals("Resource temporarily unavailable", FiErrno.strerror(-FiErrno.FI_EAGAIN),
                "a returned (negative) code gives the same text"),
            () -> assertEquals("Cannot allocate memory", FiErrno.strerror(FiErrno.FI_ENOMEM)),
            () -> assertEquals("Invalid argument", FiErrno.strerror(FiErrno.FI_EINVAL)),
            () -> assertEquals("Function not implemented", FiErrno.strerror(FiErrno.FI_ENOSYS)),
            () -> assertEquals("No data available", FiErrno.strerror(FiErrno.FI_ENODATA)),
            () -> assertEquals("Connection refused", FiErrno.strerror(FiErrno.FI_ECONNREFUSED)),
            () -> assertEquals("Operation canceled", FiErrno.strerror(FiErrno.FI_ECANCELED)),
            () -> assertEquals("Error available", FiErrno.strerror(FiErrno.FI_EAVAIL)),
            () -> assertEquals("Truncation error", FiErrno.strerror(FiErrno.FI_ETRUNC)));
        assertEquals(libcStrerror(FiErrno.FI_EAGAIN), FiErrno.strerror(FiErrno.FI_EAGAIN));
    }

    private static String libcStrerror(int errnum) throws Throwable {
        final Linker linker = Linker.nativeLinker();
        final MethodHandle strerror = linker.downcallHandle(linker.defaultLookup().find("strerror").orElseThrow(),
            FunctionDescriptor.of(ADDRESS, JAVA_INT));
        return ((MemorySegment) strerror.invokeExact(errnum)).reinterpret(1024).getString(0);
    }

    @Test
    void checkThrowsOnlyForNegativeCodesNamingCallCodeAndText() {
        assertDoesNotThrow(() -> FiErrno.check("fi_cq_read", 0));
        assertDoesNotThrow(() -> FiErrno.check("fi_cq_read", 7), "a count of entries is no error");
        final OfiException again = assertThrows(OfiException.class,
            () -> FiErrno.check("fi_send", -FiErrno.FI_EAGAIN));
        assertEquals("fi_send", again.call());
        assertEquals(-FiErrno.FI_EAGAIN, again.code());
        assertTrue(again.getMessage().contains("fi_send"), again.getMessage());
        assertTrue(again.getMessage().contains("(-11)"), again.getMessage());
        assertTrue(again.getMessage().contains("Resource temporarily unavailable"), again.getMessage());
        final OfiException avail = assertThrows(OfiException.class,
            () -> FiErrno.check("fi_cq_read", (long) -FiErrno.FI_EAVAIL));
        assertEquals(-FiErrno.FI_EAVAIL, avail.code());
        assertTrue(avail.getMessage().contains("Error available"), avail.getMessage());
    }

    @Test
    void aFailingLibfabricCallThrowsNamingTheCall() {
        // an API version newer than the library's: fi_getinfo refuses it (-FI_ENOSYS), not "no match" (NULL)
        final MemorySegment hints = FabricTestSupport.rdmHints(FabricTestSupport.PROVIDER);
        try {
            final OfiException e = assertThrows(OfiException.class,
                () -> Fabric.getInfo(Fabric.version(99, 0), null, null, 0, hints));
            assertEquals("fi_getinfo", e.call());
            assertTrue(e.code() < 0, "code " + e.code());
            assertTrue(e.getMessage().contains(FiErrno.strerror(e.code())), e.getMessage());
        } finally {
            Fabric.freeInfo(hints);
        }
        // no match at all is NULL, not an exception
        final MemorySegment none = FabricTestSupport.rdmHints("no-such-provider");
        try {
            assertEquals(MemorySegment.NULL, Fabric.getInfo(FabricTestSupport.apiVersion(), null, null, 0, none));
        } finally {
            Fabric.freeInfo(none);
        }
    }
}
