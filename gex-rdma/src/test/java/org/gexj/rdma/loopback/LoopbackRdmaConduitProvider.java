package org.gexj.rdma.loopback;

import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitProvider;

/** For tests: ServiceLoader entry of {@link LoopbackRdmaConduit} ({@code GEX_CONDUIT=rdma-loopback}). */
public final class LoopbackRdmaConduitProvider implements ConduitProvider {
    @Override
    public String name() {
        return "rdma-loopback";
    }

    @Override
    public boolean isAvailable() {
        return true;
    }

    @Override
    public Throwable unavailabilityCause() {
        return null;
    }

    @Override
    public Conduit open(ConduitContext context) {
        return new LoopbackRdmaConduit(context);
    }
}
