package org.gexj.internal.ffm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * {@code <string.h>} of the C library: {@code memcpy}.
 *
 * <p>Why: a copy whose destination lines another core holds (every payload between two ranks) runs at about twice
 * the speed with the C library's {@code memcpy} (its {@code rep movsb} path writes whole lines without reading them
 * first) as with the JDK's copy stub; measured in {@code PayloadCopy}'s javadoc.
 *
 * <p>Addresses are passed as {@code long}: wrapping them in segments would allocate per call. The call is
 * {@linkplain Linker.Option#critical(boolean) critical} (no thread-state transition), which suits a call that
 * neither blocks nor calls back.
 */
public final class StringH {
    private static final MethodHandle MEMCPY = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("memcpy").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_LONG),
        Linker.Option.critical(false));

    private StringH() {
    }

    /**
     * {@code memcpy(dst, src, n)}. The caller has checked that both ranges are mapped, live and do not overlap: this
     * is raw memory access.
     */
    public static void memcpy(long dst, long src, long n) {
        try {
            final long ignored = (long) MEMCPY.invokeExact(dst, src, n);
        } catch (Throwable t) {
            throw new AssertionError("memcpy cannot throw", t);
        }
    }
}
