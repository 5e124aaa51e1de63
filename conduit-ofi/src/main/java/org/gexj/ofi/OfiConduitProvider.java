package org.gexj.ofi;

import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitProvider;

import java.util.List;

/** ServiceLoader entry of the ofi conduit ({@code GEX_CONDUIT=ofi}). */
public final class OfiConduitProvider implements ConduitProvider {
    @Override
    public String name() {
        return "ofi";
    }

    @Override
    public boolean isAvailable() {
        return Ofi.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
        return Ofi.unavailabilityCause();
    }

    @Override
    public Conduit open(ConduitContext context) {
        if (!Ofi.isAvailable()) {
            throw new IllegalStateException("the ofi conduit cannot run here: "
                + Ofi.unavailabilityCause().getMessage(), Ofi.unavailabilityCause());
        }
        return OfiConduit.open(context);
    }

    /** Removes the shm regions ({@code /dev/shm/<pid>:*}) of ranks that were killed before they could unlink them. */
    @Override
    public List<String> cleanup(String jobId, List<Long> rankPids) {
        return ShmLeftovers.removeEnded(ShmLeftovers.SHM, rankPids);
    }
}
