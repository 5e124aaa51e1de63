package org.gexj.ibv;

import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitProvider;

/**
 * ServiceLoader entry of the ibv conduit ({@code GEX_CONDUIT=ibv}). Availability is real (library, device, ACTIVE
 * port); the conduit's data path is not built yet, so {@link #open} refuses with a message that says so.
 */
public final class IbvConduitProvider implements ConduitProvider {
    /** What {@link #open} says on a host where the conduit would otherwise run. */
    public static final String NOT_BUILT = "the ibv conduit's data path is not built yet: this release has its verbs"
        + " bindings and device selection only; use GEX_CONDUIT=ofi (libfabric's verbs;ofi_rxm) meanwhile";

    @Override
    public String name() {
        return "ibv";
    }

    @Override
    public boolean isAvailable() {
        return Ibv.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
        return Ibv.unavailabilityCause();
    }

    @Override
    public Conduit open(ConduitContext context) {
        if (!Ibv.isAvailable()) {
            throw new IllegalStateException("the ibv conduit cannot run here: "
                + Ibv.unavailabilityCause().getMessage(), Ibv.unavailabilityCause());
        }
        throw new UnsupportedOperationException(NOT_BUILT);
    }
}
