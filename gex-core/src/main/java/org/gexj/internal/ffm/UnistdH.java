package org.gexj.internal.ffm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * {@code <unistd.h>} of the C library: {@code sysconf(_SC_PAGESIZE)}.
 *
 * <p>Why: segments are page multiples and mapped memory is page aligned, and the page is 4 KiB on x86-64 but 16 or
 * 64 KiB on some aarch64 and ppc64le kernels; the JDK has no public call that says which.
 */
public final class UnistdH {
    /** {@code _SC_PAGESIZE} of glibc and musl on Linux; 29 on macOS and the BSDs derived from it. */
    private static final int SC_PAGESIZE = System.getProperty("os.name", "").toLowerCase(Locale.ROOT)
        .startsWith("mac") ? 29 : 30;
    private static final MethodHandle SYSCONF = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("sysconf").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));

    private UnistdH() {
    }

    /**
     * The size of a memory page, from the operating system.
     *
     * @throws IllegalStateException if the answer is not a power of two of at least 4096 (not a page size)
     */
    public static long pageSize() {
        final long page;
        try {
            page = (long) SYSCONF.invokeExact(SC_PAGESIZE);
        } catch (Throwable t) {
            throw new IllegalStateException("sysconf(_SC_PAGESIZE) failed", t);
        }
        if (page < 4096 || Long.bitCount(page) != 1) {
            throw new IllegalStateException("sysconf(_SC_PAGESIZE) gave " + page + ", not a page size");
        }
        return page;
    }
}
