package org.gexj;

import org.gexj.spi.ConduitProvider;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** The conduits on the class path, found through {@link ServiceLoader}. */
public final class Conduits {
    /** The conduit of a job that names none ({@code GEX_CONDUIT} unset). */
    public static final String DEFAULT = "smp";

    private Conduits() {
    }

    public static List<ConduitProvider> all() {
        final List<ConduitProvider> list = new ArrayList<>();
        ServiceLoader.load(ConduitProvider.class).forEach(list::add);
        return list;
    }

    /** The conduits {@code loader} finds (the launcher's: its own class path and {@code GEX_CLASSPATH}). */
    public static List<ConduitProvider> all(ClassLoader loader) {
        final List<ConduitProvider> list = new ArrayList<>();
        ServiceLoader.load(ConduitProvider.class, loader).forEach(list::add);
        return list;
    }

    /**
     * @throws IllegalArgumentException if no conduit has that name (the message lists the known ones)
     * @throws GexException if the conduit is present but cannot run here (the message says why)
     */
    public static ConduitProvider find(String name) {
        final List<ConduitProvider> all = all();
        for (ConduitProvider p : all) {
            if (p.name().equals(name)) {
                if (!p.isAvailable()) {
                    final Throwable cause = p.unavailabilityCause();
                    throw new GexException("conduit " + name + " is unavailable here: "
                        + (cause == null ? "unknown reason" : cause.getMessage()), cause);
                }
                return p;
            }
        }
        throw new IllegalArgumentException("GEX_CONDUIT=" + name + " is not a known conduit; on the class path: "
            + all.stream().map(ConduitProvider::name).toList());
    }
}
