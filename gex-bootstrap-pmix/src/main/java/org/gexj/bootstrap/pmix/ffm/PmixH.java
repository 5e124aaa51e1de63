package org.gexj.bootstrap.pmix.ffm;

import org.gexj.spi.NativeLibrary;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code <pmix.h>} and what it needs of {@code <pmix_common.h>} (PMIx 4.2, Debian's {@code libpmix2}): the client calls
 * {@code PMIx_Init}, {@code PMIx_Finalize}, {@code PMIx_Abort}, {@code PMIx_Put}, {@code PMIx_Commit},
 * {@code PMIx_Fence}, {@code PMIx_Get}, {@code PMIx_Value_destruct}, {@code PMIx_Value_load}, {@code PMIx_Info_load},
 * {@code PMIx_Error_string}, {@code PMIx_Get_version}, the structs {@code pmix_proc_t}, {@code pmix_value_t},
 * {@code pmix_info_t}, {@code pmix_byte_object_t}, and the keys and constants the bootstrap uses.
 *
 * <p>Every function named here is exported by {@code libpmix.so.2} 4.2.2 ({@code nm -D}); {@code PMIX_VALUE_RELEASE}
 * is a macro: {@code PMIx_Value_destruct} then the C library's {@code free}, as {@link #valueRelease} does.
 *
 * <p>Layouts are x86_64 (LP64) and checked against the library itself by {@code PmixLayoutTest}
 * ({@code PMIx_Value_load} and {@code PMIx_Info_load} write the structs, Java reads them back).
 *
 * <p>The library is found through {@code GEX_PMIX_LIBRARY} (a path), then Debian's place for it
 * ({@code /usr/lib/x86_64-linux-gnu/pmix2/lib}, outside the linker's path), then the plain soname.
 */
public final class PmixH {
    private static final Linker LINKER = Linker.nativeLinker();
    /** Places of {@code libpmix.so.2}, in order: Debian's {@code libpmix2} keeps it off the linker's path. */
    static final List<String> CANDIDATES = List.of(
        "/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2",
        "/usr/lib/x86_64-linux-gnu/libpmix.so.2",
        "/usr/lib64/libpmix.so.2",
        "/usr/local/lib/libpmix.so.2",
        "libpmix.so.2");
    private static final NativeLibrary LIBRARY = NativeLibrary.load("libpmix.so.2",
        "install the Debian package libpmix2, or set GEX_PMIX_LIBRARY to its path", "PMIx 4.2 or later needed",
        places(System.getenv("GEX_PMIX_LIBRARY")));

    private PmixH() {
    }

    /** {@code GEX_PMIX_LIBRARY}'s path, if set, then {@link #CANDIDATES}. */
    private static List<String> places(String override) {
        final List<String> places = new ArrayList<>();
        if (override != null && !override.isBlank()) {
            places.add(override.trim());
        }
        places.addAll(CANDIDATES);
        return places;
    }

    /** Why libpmix.so.2 could not be loaded, or null. Nothing else in this class may be used if not null. */
    public static Throwable loadFailure() {
        return LIBRARY.failure();
    }

    /** The path or name libpmix was loaded from, or null. */
    public static String loadedFrom() {
        return LIBRARY.loadedFrom();
    }

    // ------------------------------------------------------------------------------------------------ constants

    public static final int PMIX_MAX_NSLEN = 255;
    public static final int PMIX_MAX_KEYLEN = 511;
    /** {@code UINT32_MAX - 1} (pmix_rank_t is uint32_t): every rank of a namespace. */
    public static final int PMIX_RANK_WILDCARD = 0xFFFF_FFFE;
    public static final int PMIX_SUCCESS = 0;
    public static final int PMIX_ERR_TIMEOUT = -24;
    public static final int PMIX_ERR_NOT_FOUND = -46;
    // pmix_data_type_t (uint16_t)
    public static final short PMIX_BOOL = 1;
    public static final short PMIX_STRING = 3;
    public static final short PMIX_INT = 6;
    public static final short PMIX_UINT32 = 14;
    public static final short PMIX_BYTE_OBJECT = 27;
    public static final short PMIX_PROC_RANK = 40;
    // pmix_scope_t (uint8_t)
    public static final byte PMIX_GLOBAL = 3;
    // attribute keys
    public static final String PMIX_JOB_SIZE = "pmix.job.size";
    public static final String PMIX_LOCAL_PEERS = "pmix.lpeers";
    public static final String PMIX_COLLECT_DATA = "pmix.collect";
    public static final String PMIX_TIMEOUT = "pmix.timeout";

    // ------------------------------------------------------------------------------------------------ layouts

    /** {@code pmix_proc_t}: {@code char nspace[256]; uint32_t rank;} — 260 bytes, 4-aligned. */
    public static final StructLayout PMIX_PROC = MemoryLayout.structLayout(
        MemoryLayout.sequenceLayout(PMIX_MAX_NSLEN + 1, JAVA_BYTE).withName("nspace"),
        JAVA_INT.withName("rank")).withName("pmix_proc_t");

    /** {@code pmix_byte_object_t}: {@code char *bytes; size_t size;}. */
    public static final StructLayout PMIX_BYTE_OBJECT_T = MemoryLayout.structLayout(
        ADDRESS.withName("bytes"), JAVA_LONG.withName("size")).withName("pmix_byte_object_t");

    /**
     * The union of {@code pmix_value_t}: its largest member is {@code pmix_envar_t} ({@code char *envar, *value; char
     * separator;}, 24 bytes); the members read here are the byte object, the 32-bit integers, bool and pointers.
     */
    private static final UnionLayout PMIX_VALUE_DATA = MemoryLayout.unionLayout(
        JAVA_BYTE.withName("flag"),
        JAVA_INT.withName("uint32"),
        ADDRESS.withName("string"),
        PMIX_BYTE_OBJECT_T.withName("bo"),
        MemoryLayout.structLayout(ADDRESS.withName("envar"), ADDRESS.withName("value"), JAVA_BYTE.withName("separator"),
            MemoryLayout.paddingLayout(7)).withName("envar")).withName("data");

    /** {@code pmix_value_t}: {@code uint16_t type;} then the union at offset 8 — 32 bytes. */
    public static final StructLayout PMIX_VALUE = MemoryLayout.structLayout(
        JAVA_SHORT.withName("type"), MemoryLayout.paddingLayout(6), PMIX_VALUE_DATA).withName("pmix_value_t");

    /** {@code pmix_info_t}: {@code char key[512]; uint32_t flags; pmix_value_t value;} — 552 bytes. */
    public static final StructLayout PMIX_INFO = MemoryLayout.structLayout(
        MemoryLayout.sequenceLayout(PMIX_MAX_KEYLEN + 1, JAVA_BYTE).withName("key"),
        JAVA_INT.withName("flags"), MemoryLayout.paddingLayout(4),
        PMIX_VALUE.withName("value")).withName("pmix_info_t");

    public static final long PROC_RANK = PMIX_PROC.byteOffset(groupElement("rank"));
    public static final long VALUE_TYPE = PMIX_VALUE.byteOffset(groupElement("type"));
    public static final long VALUE_DATA = PMIX_VALUE.byteOffset(groupElement("data"));
    public static final long BO_BYTES = PMIX_BYTE_OBJECT_T.byteOffset(groupElement("bytes"));
    public static final long BO_SIZE = PMIX_BYTE_OBJECT_T.byteOffset(groupElement("size"));
    public static final long INFO_FLAGS = PMIX_INFO.byteOffset(groupElement("flags"));
    public static final long INFO_VALUE = PMIX_INFO.byteOffset(groupElement("value"));

    // ------------------------------------------------------------------------------------------------ functions

    private static MethodHandle bind(String name, FunctionDescriptor descriptor) {
        // null where the library did not load: this class still initialises, to report loadFailure()
        return LIBRARY.loaded() ? LIBRARY.downcall(name, descriptor) : null;
    }

    private static final MethodHandle INIT = bind("PMIx_Init",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle FINALIZE = bind("PMIx_Finalize",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle ABORT = bind("PMIx_Abort",
        FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle PUT = bind("PMIx_Put",
        FunctionDescriptor.of(JAVA_INT, JAVA_BYTE, ADDRESS, ADDRESS));
    private static final MethodHandle COMMIT = bind("PMIx_Commit", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle FENCE = bind("PMIx_Fence",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG));
    private static final MethodHandle GET = bind("PMIx_Get",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
    private static final MethodHandle VALUE_DESTRUCT = bind("PMIx_Value_destruct", FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle VALUE_LOAD = bind("PMIx_Value_load",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_SHORT));
    private static final MethodHandle INFO_LOAD = bind("PMIx_Info_load",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_SHORT));
    private static final MethodHandle ERROR_STRING = bind("PMIx_Error_string",
        FunctionDescriptor.of(ADDRESS, JAVA_INT));
    private static final MethodHandle GET_VERSION = bind("PMIx_Get_version", FunctionDescriptor.of(ADDRESS));
    private static final MethodHandle FREE = LINKER.downcallHandle(LINKER.defaultLookup().find("free").orElseThrow(),
        FunctionDescriptor.ofVoid(ADDRESS));

    private static AssertionError rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new AssertionError("a PMIx downcall cannot throw a checked exception", t);
    }

    /** {@code PMIx_Init(proc, info, ninfo)}: fills {@code proc} with this process's namespace and rank. */
    public static int init(MemorySegment proc, MemorySegment info, long ninfo) {
        try {
            return (int) INIT.invokeExact(proc, info, ninfo);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int finalizeClient() {
        try {
            return (int) FINALIZE.invokeExact(MemorySegment.NULL, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code PMIx_Abort(status, msg, NULL, 0)}: the whole namespace. */
    public static int abort(int status, MemorySegment message) {
        try {
            return (int) ABORT.invokeExact(status, message, MemorySegment.NULL, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int put(byte scope, MemorySegment key, MemorySegment value) {
        try {
            return (int) PUT.invokeExact(scope, key, value);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int commit() {
        try {
            return (int) COMMIT.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code PMIx_Fence(procs, nprocs, info, ninfo)}; NULL procs: every process of the caller's namespace. */
    public static int fence(MemorySegment procs, long nprocs, MemorySegment info, long ninfo) {
        try {
            return (int) FENCE.invokeExact(procs, nprocs, info, ninfo);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code PMIx_Get(proc, key, info, ninfo, &value)}: {@code valueOut} is a pointer-sized cell. */
    public static int get(MemorySegment proc, MemorySegment key, MemorySegment info, long ninfo,
                          MemorySegment valueOut) {
        try {
            return (int) GET.invokeExact(proc, key, info, ninfo, valueOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code PMIX_VALUE_RELEASE(value)}: a value {@code PMIx_Get} returned: its data, then the struct. */
    public static void valueRelease(MemorySegment value) {
        try {
            VALUE_DESTRUCT.invokeExact(value);
            FREE.invokeExact(value);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code PMIx_Value_destruct(value)}: frees what the value points to (not the struct). */
    public static void valueDestruct(MemorySegment value) {
        try {
            VALUE_DESTRUCT.invokeExact(value);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code PMIx_Value_load(value, data, type)}: copies {@code *data} into the value. */
    public static int valueLoad(MemorySegment value, MemorySegment data, short type) {
        try {
            return (int) VALUE_LOAD.invokeExact(value, data, type);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code PMIx_Info_load(info, key, data, type)}. */
    public static int infoLoad(MemorySegment info, MemorySegment key, MemorySegment data, short type) {
        try {
            return (int) INFO_LOAD.invokeExact(info, key, data, type);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code PMIx_Error_string(status)}, e.g. {@code PMIX_ERR_TIMEOUT}. */
    public static String errorString(int status) {
        try {
            final MemorySegment s = (MemorySegment) ERROR_STRING.invokeExact(status);
            return s.equals(MemorySegment.NULL) ? "status " + status : cString(s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code PMIx_Get_version()}, e.g. {@code OpenPMIx 4.2.2 (...)}. */
    public static String version() {
        try {
            return cString((MemorySegment) GET_VERSION.invokeExact());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A NUL-terminated string the library owns (at most 4 KiB read). */
    public static String cString(MemorySegment s) {
        return s.reinterpret(4096).getString(0, StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------------------------------------ structs

    /** Writes a {@code pmix_proc_t} of {@code nspace} and {@code rank} at {@code proc}'s start. */
    public static void setProc(MemorySegment proc, String nspace, int rank) {
        final byte[] name = nspace.getBytes(StandardCharsets.UTF_8);
        if (name.length > PMIX_MAX_NSLEN) {
            throw new IllegalArgumentException("PMIx namespace '" + nspace + "' is longer than " + PMIX_MAX_NSLEN
                + " bytes");
        }
        proc.asSlice(0, PMIX_MAX_NSLEN + 1).fill((byte) 0);
        MemorySegment.copy(name, 0, proc, JAVA_BYTE, 0, name.length);
        proc.set(JAVA_INT, PROC_RANK, rank);
    }

    public static String procNamespace(MemorySegment proc) {
        return proc.getString(0, StandardCharsets.UTF_8);
    }

    public static int procRank(MemorySegment proc) {
        return proc.get(JAVA_INT, PROC_RANK);
    }

    /** The value's {@code type}. */
    public static short valueType(MemorySegment value) {
        return value.get(JAVA_SHORT, VALUE_TYPE);
    }

    /** A byte object value (PMIx_Put copies the bytes, so {@code bytes} need only live for the call). */
    public static void setByteObject(MemorySegment value, MemorySegment bytes) {
        value.asSlice(0, PMIX_VALUE.byteSize()).fill((byte) 0);
        value.set(JAVA_SHORT, VALUE_TYPE, PMIX_BYTE_OBJECT);
        value.set(ADDRESS, VALUE_DATA + BO_BYTES, bytes);
        value.set(JAVA_LONG, VALUE_DATA + BO_SIZE, bytes.byteSize());
    }

    /**
     * The bytes of a byte object value, copied.
     *
     * @throws IllegalStateException if the value is of another type or its size is negative or above 2 GiB
     */
    public static byte[] byteObject(MemorySegment value) {
        final short type = valueType(value);
        if (type != PMIX_BYTE_OBJECT) {
            throw new IllegalStateException("PMIx value of type " + type + ", expected PMIX_BYTE_OBJECT ("
                + PMIX_BYTE_OBJECT + ")");
        }
        final long size = value.get(JAVA_LONG, VALUE_DATA + BO_SIZE);
        if (size < 0 || size > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("PMIx byte object of " + size + " bytes");
        }
        if (size == 0) {
            return new byte[0];
        }
        final MemorySegment bytes = value.get(ADDRESS, VALUE_DATA + BO_BYTES).reinterpret(size);
        return bytes.toArray(JAVA_BYTE);
    }

    /** A 32-bit unsigned value ({@code PMIX_UINT32} or {@code PMIX_PROC_RANK}) as an int. */
    public static int uint32(MemorySegment value) {
        final short type = valueType(value);
        if (type != PMIX_UINT32 && type != PMIX_PROC_RANK && type != PMIX_INT) {
            throw new IllegalStateException("PMIx value of type " + type + ", expected PMIX_UINT32 (" + PMIX_UINT32
                + ")");
        }
        return value.get(JAVA_INT, VALUE_DATA);
    }

    /** A {@code PMIX_STRING} value. */
    public static String string(MemorySegment value) {
        final short type = valueType(value);
        if (type != PMIX_STRING) {
            throw new IllegalStateException("PMIx value of type " + type + ", expected PMIX_STRING (" + PMIX_STRING
                + ")");
        }
        final MemorySegment s = value.get(ADDRESS, VALUE_DATA);
        return s.equals(MemorySegment.NULL) ? "" : s.reinterpret(Integer.MAX_VALUE).getString(0,
            StandardCharsets.UTF_8);
    }

    /** Writes an info of {@code key} with a {@code PMIX_INT} (timeout) value at {@code info}'s start. */
    public static void setIntInfo(MemorySegment info, String key, int value) {
        setInfoKey(info, key);
        info.set(JAVA_SHORT, INFO_VALUE + VALUE_TYPE, PMIX_INT);
        info.set(JAVA_INT, INFO_VALUE + VALUE_DATA, value);
    }

    /** Writes an info of {@code key} with a {@code PMIX_BOOL} value at {@code info}'s start. */
    public static void setBoolInfo(MemorySegment info, String key, boolean value) {
        setInfoKey(info, key);
        info.set(JAVA_SHORT, INFO_VALUE + VALUE_TYPE, PMIX_BOOL);
        info.set(JAVA_BYTE, INFO_VALUE + VALUE_DATA, value ? (byte) 1 : (byte) 0);
    }

    private static void setInfoKey(MemorySegment info, String key) {
        final byte[] k = key.getBytes(StandardCharsets.UTF_8);
        if (k.length > PMIX_MAX_KEYLEN) {
            throw new IllegalArgumentException("PMIx key '" + key + "' is longer than " + PMIX_MAX_KEYLEN + " bytes");
        }
        info.asSlice(0, PMIX_INFO.byteSize()).fill((byte) 0);
        MemorySegment.copy(k, 0, info, JAVA_BYTE, 0, k.length);
    }
}
