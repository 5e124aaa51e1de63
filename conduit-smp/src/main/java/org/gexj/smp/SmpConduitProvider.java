package org.gexj.smp;

import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitProvider;

import java.util.List;

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

    /** Removes the job's files in /dev/shm that a killed rank could not unlink. */
    @Override
    public List<String> cleanup(String jobId, List<Long> rankPids) {
        return SharedFiles.removeLeftovers(Smp.SHM, jobId);
    }
}
