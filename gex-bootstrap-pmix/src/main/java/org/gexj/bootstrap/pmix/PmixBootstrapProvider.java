package org.gexj.bootstrap.pmix;

import org.gexj.Config;
import org.gexj.bootstrap.TcpBootstrapProvider;
import org.gexj.bootstrap.pmix.ffm.PmixH;
import org.gexj.spi.BootstrapProvider;
import org.gexj.spi.JobHealth;

import java.util.function.ObjIntConsumer;

/**
 * A rank started by a resource manager's PMIx server ({@code PMIX_NAMESPACE} and {@code PMIX_RANK} set,
 * {@code GEX_BOOTSTRAP} not: {@code mpirun}, {@code srun --mpi=pmix}): rank and size come from PMIx, not from
 * {@code GEX_RANK}/{@code GEX_SIZE}; the job id and secret from {@link PmixBootstrap}; and, as under gexrun, a rank
 * ends its process when the job fails ({@code GEX_EXIT_ON_FAILURE} defaults to 1).
 */
public final class PmixBootstrapProvider implements BootstrapProvider {
    /** Below tcp's: a gexrun started inside an mpirun job gives its ranks GEX_BOOTSTRAP, and they use it. */
    static final int PRIORITY = TcpBootstrapProvider.PRIORITY / 2;

    @Override
    public String name() {
        return "pmix";
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public boolean requested(Config config) {
        return PmixBootstrap.requested(config);
    }

    /** Loads libpmix ({@link PmixH}), so it is asked only of a process that {@link #requested} PMIx. */
    @Override
    public boolean isAvailable() {
        return PmixH.loadFailure() == null;
    }

    @Override
    public Throwable unavailabilityCause() {
        return PmixH.loadFailure();
    }

    @Override
    public Joined join(Config config, JobHealth health, ObjIntConsumer<String> joinOnce) {
        final PmixBootstrap bootstrap = PmixBootstrap.init(config, health);
        try {
            joinOnce.accept(bootstrap.jobId(), bootstrap.rank());
        } catch (RuntimeException e) {
            bootstrap.close();
            throw e;
        }
        Config jobConfig = config.with("GEX_JOB_ID", bootstrap.jobId())
            .with("GEX_JOB_SECRET", bootstrap.secretHex());
        if (config.get("GEX_EXIT_ON_FAILURE", null) == null) {
            jobConfig = jobConfig.with("GEX_EXIT_ON_FAILURE", "1");
        }
        return new Joined(bootstrap, bootstrap.jobId(), jobConfig);
    }
}
