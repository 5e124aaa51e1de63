package org.gexj.ibv.ffm;

import org.gexj.ibv.IbvException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code <errno.h>} and {@code <string.h>}'s {@code strerror_r}: the errno a verbs call left behind, captured by the
 * linker right after the call (the JVM may overwrite the thread's errno before Java could read it), and its text.
 *
 * <p>libibverbs reports failures three ways: functions returning a pointer return NULL and set errno; most functions
 * returning {@code int} return the errno itself; a few ({@code ibv_query_gid}) return -1 and set errno. {@link #check}
 * reads all three.
 */
public final class Errno {
    public static final int ENOENT = 2;
    public static final int ENOMEM = 12;
    public static final int EINVAL = 22;
    public static final int ENOSYS = 38;
    public static final int ENODATA = 61;
    public static final int EOPNOTSUPP = 95;

    /** The linker's capture option: a downcall made with it takes a {@link #CAPTURE} segment as first argument. */
    static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(groupElement("errno"));

    // the XSI strerror_r (glibc's __xpg_strerror_r): fills the buffer, thread-safe unlike strerror
    private static final MethodHandle STRERROR_R = Verbs.LINKER.defaultLookup().find("__xpg_strerror_r")
        .map(s -> Verbs.LINKER.downcallHandle(s, FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG)))
        .orElse(null);

    private Errno() {
    }

    /** A segment for one call's captured state. */
    static MemorySegment capture(Arena arena) {
        return arena.allocate(CAPTURE);
    }

    /** The errno a call made with {@link #CAPTURE_ERRNO} left in {@code capture}. */
    static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }

    /** The C library's text for {@code errno}, e.g. "Cannot allocate memory". */
    public static String text(int errno) {
        if (STRERROR_R != null) {
            try (Arena arena = Arena.ofConfined()) {
                final MemorySegment buffer = arena.allocate(256);
                if ((int) STRERROR_R.invokeExact(errno, buffer, buffer.byteSize()) == 0) {
                    return buffer.getString(0);
                }
            } catch (Throwable t) {
                // fall through to the number alone: the text is a courtesy
            }
        }
        return "error " + errno;
    }

    /**
     * @param rc       the call's return code
     * @param captured the captured errno, read when {@code rc} is negative
     * @throws IbvException if {@code rc} is not 0
     */
    static void check(String call, int rc, MemorySegment captured) {
        if (rc != 0) {
            throw failure(call, rc > 0 ? rc : (rc == -1 ? errno(captured) : -rc));
        }
    }

    /** @throws IbvException with the captured errno if {@code result} is NULL; else returns it */
    static MemorySegment checkPointer(String call, MemorySegment result, MemorySegment captured) {
        if (result.equals(MemorySegment.NULL)) {
            throw failure(call, errno(captured));
        }
        return result;
    }

    /** The exception for a call that failed with {@code errno}. */
    public static IbvException failure(String call, int errno) {
        return new IbvException(call, errno, errno == 0 ? "failed without an errno" : text(errno));
    }

    /** A downcall that threw: FFM linkage errors only, never libibverbs' own failures. */
    static IbvException unexpected(String call, Throwable t) {
        if (t instanceof IbvException e) {
            return e;
        }
        final IbvException e = new IbvException(call, 0, "could not be called through FFM: " + t);
        e.initCause(t);
        return e;
    }
}
