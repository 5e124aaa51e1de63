package org.gexj.ofi.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * {@code <stdlib.h>}: {@code setenv}, for the process environment that native libraries read at load time (Java's
 * {@code System.getenv} is a copy taken at start-up and cannot change it).
 */
final class Stdlib {
    private static final MethodHandle SETENV = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("setenv").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));

    private Stdlib() {
    }

    /** {@code setenv(name, value, 0)}: sets {@code name} unless the process already has it. @return true on success */
    static boolean setenvUnlessSet(String name, String value) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) SETENV.invokeExact(arena.allocateFrom(name), arena.allocateFrom(value), 0) == 0;
        } catch (Throwable e) {
            throw new IllegalStateException("setenv(" + name + ") failed", e);
        }
    }
}
