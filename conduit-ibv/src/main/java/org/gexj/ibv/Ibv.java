package org.gexj.ibv;

import org.gexj.ibv.ffm.Verbs;

import java.util.Map;

/**
 * Availability probe of the ibv conduit, evaluated once per JVM: libibverbs ({@code libibverbs.so.1}, Debian package
 * {@code libibverbs1}) loads, an RDMA device exists, and {@code GEX_IBV_DEVICE}/{@code GEX_IBV_PORT} (or the default,
 * the first ACTIVE port) name an ACTIVE port. The cause's message says which of these fails.
 */
public final class Ibv {
    /** The reason on a host without RDMA devices (or without kernel RDMA support, where the list is NULL). */
    public static final String NO_DEVICE = "no RDMA device (ibv_get_device_list returned 0 devices)";
    public static final String NO_LIBRARY = "libibverbs.so.1 not found (install the Debian package libibverbs1)";

    private static final Throwable UNAVAILABILITY_CAUSE = probe(System.getenv());

    private Ibv() {
    }

    /**
     * Why the conduit cannot run with {@code env}'s settings, or null if it can. Never throws: every failure is the
     * cause.
     */
    static Throwable probe(Map<String, String> env) {
        if (Verbs.loadFailure() != null) {
            return new IllegalStateException(NO_LIBRARY, Verbs.loadFailure());
        }
        try {
            final IbvSettings settings = IbvSettings.from(env);
            settings.choose(IbvInventory.scan());
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }

    /** @return true if the ibv conduit can open on this host */
    public static boolean isAvailable() {
        return UNAVAILABILITY_CAUSE == null;
    }

    /** Why {@link #isAvailable()} is false, or null. */
    public static Throwable unavailabilityCause() {
        return UNAVAILABILITY_CAUSE;
    }
}
