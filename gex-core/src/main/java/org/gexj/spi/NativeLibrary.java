package org.gexj.spi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A shared library that a conduit's or bootstrap's FFM binding calls (libfabric, libibverbs, libpmix): the first of
 * its places that loads, or why none did, and downcall handles to its exported functions. Loading never throws, so
 * that a binding class can load in its static initializer and the module's availability probe report
 * {@link #failure()} instead; the library stays loaded for the life of the JVM.
 */
public final class NativeLibrary {
    private static final Linker LINKER = Linker.nativeLinker();

    private final String name;
    private final String needed;
    private final SymbolLookup lookup;
    private final String loadedFrom;
    private final Throwable failure;

    private NativeLibrary(String name, String needed, SymbolLookup lookup, String loadedFrom, Throwable failure) {
        this.name = name;
        this.needed = needed;
        this.lookup = lookup;
        this.loadedFrom = loadedFrom;
        this.failure = failure;
    }

    /**
     * Loads the first of {@code places} that loads: an absolute path only if it is a readable file, a bare name
     * ({@code libfabric.so.1}) as the dynamic linker finds it.
     *
     * @param name    the library's soname, for messages
     * @param install how to get it, for the message when none loads ("install the Debian package libfabric1")
     * @param needed  what a missing symbol means ("PMIx 4.2 or later needed"), or null
     */
    public static NativeLibrary load(String name, String install, String needed, List<String> places) {
        final List<String> failures = new ArrayList<>();
        Throwable last = null;
        for (String place : places) {
            if (place.startsWith("/") && !Files.isReadable(Path.of(place))) {
                failures.add(place + ": no such file");
                continue;
            }
            try {
                return new NativeLibrary(name, needed, SymbolLookup.libraryLookup(place, Arena.global()), place, null);
            } catch (IllegalArgumentException | IllegalCallerException e) {
                failures.add(place + ": " + e.getMessage());
                last = e;
            }
        }
        return new NativeLibrary(name, needed, null, null, new IllegalStateException(name + " cannot be loaded ("
            + install + "); tried " + String.join("; ", failures), last));
    }

    /** Why the library could not be loaded, naming every place tried; or null. */
    public Throwable failure() {
        return failure;
    }

    /** True if the library is loaded. */
    public boolean loaded() {
        return lookup != null;
    }

    /** The place the library was loaded from, or null. */
    public String loadedFrom() {
        return loadedFrom;
    }

    /**
     * A downcall handle to the exported function {@code symbol}.
     *
     * @throws IllegalStateException if the library is not loaded (with {@link #failure()} as the cause), or does not
     *                               export {@code symbol}
     */
    public MethodHandle downcall(String symbol, FunctionDescriptor descriptor, Linker.Option... options) {
        if (lookup == null) {
            throw new IllegalStateException(name + " is not loaded", failure);
        }
        return LINKER.downcallHandle(lookup.find(symbol).orElseThrow(() -> new IllegalStateException(loadedFrom
            + " does not export " + symbol + (needed == null ? "" : " (" + needed + ")"))), descriptor, options);
    }
}
