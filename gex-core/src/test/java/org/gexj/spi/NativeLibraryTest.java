package org.gexj.spi;

import org.junit.jupiter.api.Test;

import java.lang.foreign.FunctionDescriptor;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The loader the FFM bindings share (libfabric, libibverbs, libpmix): the first place that loads wins, an absolute
 * path that is no file is skipped without dlopen, and a failure names the library, how to install it and every place
 * tried, without throwing until a function is bound.
 */
class NativeLibraryTest {
    private static final FunctionDescriptor GETPID = FunctionDescriptor.of(JAVA_INT);

    @Test
    void loadsTheFirstPlaceThatLoadsAndBindsItsFunctions() throws Throwable {
        final NativeLibrary libc = NativeLibrary.load("libc.so.6", "install libc6", null,
            List.of("/nonexistent/libc.so.6", "libc.so.6"));
        assertTrue(libc.loaded());
        assertNull(libc.failure());
        assertEquals("libc.so.6", libc.loadedFrom());
        assertEquals((int) ProcessHandle.current().pid(), (int) libc.downcall("getpid", GETPID).invokeExact());
    }

    @Test
    void aMissingSymbolNamesThePlaceAndWhatIsNeeded() {
        final NativeLibrary libc = NativeLibrary.load("libc.so.6", "install libc6", "glibc 9 needed",
            List.of("libc.so.6"));
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> libc.downcall("gexj_no_such_function", GETPID));
        assertEquals("libc.so.6 does not export gexj_no_such_function (glibc 9 needed)", e.getMessage());
    }

    @Test
    void noPlaceLoads() {
        final NativeLibrary missing = NativeLibrary.load("libgexjmissing.so.1", "install nothing", null,
            List.of("/nonexistent/libgexjmissing.so.1", "libgexjmissing.so.1"));
        assertFalse(missing.loaded());
        assertNull(missing.loadedFrom());
        final String message = missing.failure().getMessage();
        assertTrue(message.startsWith("libgexjmissing.so.1 cannot be loaded (install nothing); tried "
            + "/nonexistent/libgexjmissing.so.1: no such file; libgexjmissing.so.1: "), message);
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> missing.downcall("getpid", GETPID));
        assertEquals("libgexjmissing.so.1 is not loaded", e.getMessage());
        assertSame(missing.failure(), e.getCause());
    }
}
