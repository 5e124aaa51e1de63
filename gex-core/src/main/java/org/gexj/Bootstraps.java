package org.gexj;

import org.gexj.spi.BootstrapProvider;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/** The bootstraps on the class path, found through {@link ServiceLoader}, and the one this process's job uses. */
final class Bootstraps {
    private Bootstraps() {
    }

    /** Every provider, highest priority first. */
    static List<BootstrapProvider> all() {
        final List<BootstrapProvider> list = new ArrayList<>();
        ServiceLoader.load(BootstrapProvider.class).forEach(list::add);
        list.sort(Comparator.comparingInt(BootstrapProvider::priority).reversed());
        return list;
    }

    /**
     * The provider of highest priority that {@code config} requests.
     *
     * @throws GexException if that provider cannot run here (the message says why), or none is requested
     */
    static BootstrapProvider select(Config config) {
        final List<BootstrapProvider> all = all();
        for (BootstrapProvider p : all) {
            if (p.requested(config)) {
                if (!p.isAvailable()) {
                    final Throwable cause = p.unavailabilityCause();
                    throw new GexException("this process's environment asks for bootstrap " + p.name()
                        + ", which is unavailable here: " + (cause == null ? "unknown reason" : cause.getMessage()),
                        cause);
                }
                return p;
            }
        }
        throw new GexException("no bootstrap on the class path takes this process's environment; there are "
            + all.stream().map(BootstrapProvider::name).toList());
    }
}
