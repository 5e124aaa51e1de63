package org.gexj.ofi;

import org.gexj.ofi.ffm.Fabric;

import java.util.List;

/**
 * Availability probe of the ofi conduit, evaluated once per JVM: libfabric ({@code libfabric.so.1}, Debian package
 * {@code libfabric1}) loads, and a provider offers an RDM endpoint with messages, RMA and multi-receive buffers.
 */
public final class Ofi {
    private static final Throwable UNAVAILABILITY_CAUSE = probe();

    private Ofi() {
    }

    private static Throwable probe() {
        final Throwable load = Fabric.loadFailure(); // names the library, the Debian package and why dlopen failed
        if (load != null) {
            return load;
        }
        try {
            final List<String> offered = OfiFabric.offered(null, null);
            if (offered.isEmpty()) {
                return new IllegalStateException("libfabric " + version() + " loads, but no provider offers an RDM"
                    + " endpoint with FI_MSG, FI_RMA and FI_MULTI_RECV (see fi_info -t FI_EP_RDM)");
            }
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }

    /** @return true if the ofi conduit can open on this host */
    public static boolean isAvailable() {
        return UNAVAILABILITY_CAUSE == null;
    }

    /** Why {@link #isAvailable()} is false, or null. */
    public static Throwable unavailabilityCause() {
        return UNAVAILABILITY_CAUSE;
    }

    /** libfabric's version, e.g. {@code 1.17}. */
    public static String version() {
        final int v = Fabric.fiVersion();
        return (v >>> 16) + "." + (v & 0xFFFF);
    }

    /**
     * The providers (and domains) that offer what the conduit needs, in {@code fi_getinfo}'s order; empty when none.
     */
    public static List<String> providers() {
        return isAvailable() ? OfiFabric.offered(null, null) : List.of();
    }
}
