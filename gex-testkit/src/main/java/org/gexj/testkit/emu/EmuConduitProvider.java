package org.gexj.testkit.emu;

import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitProvider;

import java.util.List;

/** ServiceLoader entry of the emu conduit ({@code GEX_CONDUIT=emu}): an emulated RDMA network for tests. */
public final class EmuConduitProvider implements ConduitProvider {
    @Override
    public String name() {
        return "emu";
    }

    /** Always: emu needs nothing from the machine. */
    @Override
    public boolean isAvailable() {
        return true;
    }

    @Override
    public Conduit open(ConduitContext context) {
        return EmuConduit.open(context);
    }

    /** Nothing to remove: an emu job lives in the memory of its JVM only. */
    @Override
    public List<String> cleanup(String jobId, List<Long> rankPids) {
        return List.of();
    }
}
