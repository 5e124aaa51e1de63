package org.gexj.ibv;

import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitProvider;

/**
 * ServiceLoader entry of the ibv conduit ({@code GEX_CONDUIT=ibv}): available where libibverbs loads and a device has
 * an ACTIVE port ({@link Ibv}).
 */
public final class IbvConduitProvider implements ConduitProvider {
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
        return IbvConduit.open(context);
    }
}
