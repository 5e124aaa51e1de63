package org.gexj.ofi.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** What the ffm tests share: libc allocation for strings libfabric frees, RDM hints, and parsing of fi_tostr text. */
final class FabricTestSupport {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle STRDUP = LINKER.downcallHandle(
        LINKER.defaultLookup().find("strdup").orElseThrow(), FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle MALLOC = LINKER.downcallHandle(
        LINKER.defaultLookup().find("malloc").orElseThrow(), FunctionDescriptor.of(ADDRESS, JAVA_LONG));

    /** The provider the in-process tests run on: in the Debian package, always present, loopback-capable. */
    static final String PROVIDER = "tcp;ofi_rxm";

    private FabricTestSupport() {
    }

    /** A malloc'd copy of {@code s}: fi_freeinfo frees the strings hung on an fi_info. */
    static MemorySegment strdup(String s) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment copy = (MemorySegment) STRDUP.invokeExact(arena.allocateFrom(s));
            if (copy.equals(MemorySegment.NULL)) {
                throw new OutOfMemoryError("strdup");
            }
            return copy;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** A malloc'd copy of {@code bytes}, for the pointers fi_freeinfo frees (addresses, auth keys). */
    static MemorySegment malloc(byte[] bytes) {
        try {
            final MemorySegment m = ((MemorySegment) MALLOC.invokeExact((long) bytes.length)).reinterpret(bytes.length);
            if (m.equals(MemorySegment.NULL)) {
                throw new OutOfMemoryError("malloc");
            }
            MemorySegment.copy(bytes, 0, m, JAVA_BYTE, 0, bytes.length);
            return m;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** The API version the conduit asks for. */
    static int apiVersion() {
        return Math.min(Fabric.fiVersion(), Fabric.version(Fabric.FI_MAJOR_VERSION, Fabric.FI_MINOR_VERSION));
    }

    /**
     * Hints as the conduit builds them (OfiFabric.hints): RDM, MSG|RMA|MULTI_RECV, the modes and registration modes it
     * honours, thread-safe domain, AV table, and the provider by name.
     */
    static MemorySegment rdmHints(String provider) {
        final MemorySegment hints = Fabric.dupInfo(MemorySegment.NULL);
        hints.set(JAVA_LONG, Fabric.INFO_CAPS, Fabric.FI_MSG | Fabric.FI_RMA | Fabric.FI_MULTI_RECV);
        hints.set(JAVA_LONG, Fabric.INFO_MODE, Fabric.FI_CONTEXT | Fabric.FI_CONTEXT2);
        Fabric.attr(hints, Fabric.INFO_EP_ATTR, Fabric.FI_EP_ATTR).set(JAVA_INT, Fabric.EP_TYPE, Fabric.FI_EP_RDM);
        final MemorySegment domainAttr = Fabric.attr(hints, Fabric.INFO_DOMAIN_ATTR, Fabric.FI_DOMAIN_ATTR);
        domainAttr.set(JAVA_INT, Fabric.DOMAIN_MR_MODE, Fabric.FI_MR_LOCAL | Fabric.FI_MR_VIRT_ADDR
            | Fabric.FI_MR_ALLOCATED | Fabric.FI_MR_PROV_KEY | Fabric.FI_MR_ENDPOINT);
        domainAttr.set(JAVA_INT, Fabric.DOMAIN_THREADING, Fabric.FI_THREAD_SAFE);
        domainAttr.set(JAVA_INT, Fabric.DOMAIN_AV_TYPE, Fabric.FI_AV_TABLE);
        Fabric.attr(hints, Fabric.INFO_FABRIC_ATTR, Fabric.FI_FABRIC_ATTR).set(ADDRESS, Fabric.FABRIC_PROV_NAME,
            strdup(provider));
        return hints;
    }

    /**
     * fi_getinfo for {@code provider} on loopback (node 127.0.0.1 with FI_SOURCE keeps tcp off eth0), as the
     * conduit's query does when it is given a node; never NULL.
     */
    static MemorySegment loopbackInfo(String provider) {
        final MemorySegment hints = rdmHints(provider);
        try {
            final MemorySegment list = Fabric.getInfo(apiVersion(), "127.0.0.1", null, Fabric.FI_SOURCE, hints);
            if (list.equals(MemorySegment.NULL)) {
                throw new AssertionError("fi_getinfo offers no " + provider + " RDM endpoint on 127.0.0.1");
            }
            return list;
        } finally {
            Fabric.freeInfo(hints);
        }
    }

    /**
     * fi_tostr's YAML-like dump as "section.field" to value; fields of the fi_info itself are under "fi_info".
     * Sections are the lines that end in a colon (fi_tx_attr:, fi_domain_attr: ...).
     */
    static Map<String, String> parse(String text) {
        final Map<String, String> fields = new LinkedHashMap<>();
        String section = "fi_info";
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.strip().equals("fi_info:") || line.strip().equals("---")) {
                continue;
            }
            final int indent = line.length() - line.stripLeading().length();
            final String body = line.strip();
            final int colon = body.indexOf(':');
            if (colon < 0) {
                throw new AssertionError("not a 'field: value' line: '" + line + "' in\n" + text);
            }
            final String key = body.substring(0, colon);
            final String value = body.substring(colon + 1).strip();
            if (value.isEmpty()) {
                section = key;
                continue;
            }
            final String owner = indent <= 4 ? "fi_info" : section;
            if (fields.put(owner + "." + key, value) != null) {
                throw new AssertionError("field " + owner + "." + key + " printed twice in\n" + text);
            }
        }
        return fields;
    }

    /** "[ FI_A, FI_B ]" as {FI_A, FI_B}. */
    static Set<String> flags(String bracketed) {
        final String s = bracketed.strip();
        if (!s.startsWith("[") || !s.endsWith("]")) {
            throw new AssertionError("not a flag list: " + bracketed);
        }
        return Arrays.stream(s.substring(1, s.length() - 1).split(",")).map(String::strip)
            .filter(f -> !f.isEmpty()).collect(Collectors.toCollection(TreeSet::new));
    }

    static Set<String> set(String... names) {
        return new TreeSet<>(Arrays.asList(names));
    }
}
