package org.gexj.smp;

import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitProvider;

/** ServiceLoader entry of the smp conduit ({@code GEX_CONDUIT=smp}). */
public final class SmpConduitProvider implements ConduitProvider {
    @Override
    public String name() {
        return "smp";
    }

    @Override
    public boolean isAvailable() {
        return Smp.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
        return Smp.unavailabilityCause();
    }

    @Override
    public Conduit open(ConduitContext context) {
        return SmpConduit.open(context);
    }
}
