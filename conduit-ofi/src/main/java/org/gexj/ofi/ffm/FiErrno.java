package org.gexj.ofi.ffm;

import org.gexj.ofi.OfiException;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@code <rdma/fi_errno.h>}: the error codes the conduit tells apart and {@code fi_strerror}. libfabric returns
 * negative codes ({@code -FI_EAGAIN}); {@link #check} turns every failure into one {@link OfiException} naming the
 * call, its code and libfabric's text.
 */
public final class FiErrno {
    public static final int FI_ENOENT = 2;
    public static final int FI_EAGAIN = 11;
    public static final int FI_ENOMEM = 12;
    public static final int FI_EINVAL = 22;
    public static final int FI_ENOSYS = 38;
    public static final int FI_ENODATA = 61;
    public static final int FI_ECONNREFUSED = 111;
    public static final int FI_ECANCELED = 125;
    public static final int FI_EAVAIL = 259;
    public static final int FI_ETRUNC = 265;

    private static final class Exported {
        static final MethodHandle STRERROR = Fabric.exported("fi_strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    private FiErrno() {
    }

    /** {@code fi_strerror(errnum)} for a positive code. */
    public static String strerror(int errnum) {
        try {
            final String text = Fabric.string((MemorySegment) Exported.STRERROR.invokeExact(Math.abs(errnum)));
            return text == null ? "error " + errnum : text;
        } catch (Throwable t) {
            return "error " + errnum;
        }
    }

    /** @throws OfiException if {@code rc} is negative */
    public static void check(String call, long rc) {
        if (rc < 0) {
            throw new OfiException(call, (int) rc, strerror((int) -rc));
        }
    }

    /** A downcall that threw: FFM linkage errors only, never libfabric's own failures. */
    static OfiException unexpected(String call, Throwable t) {
        final OfiException e = new OfiException(call + " could not be called: " + t);
        e.initCause(t);
        return e;
    }
}
