package org.gexj.bootstrap;

import org.gexj.Config;
import org.gexj.GexException;
import org.gexj.spi.BootstrapProvider;
import org.gexj.spi.JobHealth;

import java.util.function.ObjIntConsumer;

/** A process that no launcher started, asked last: a one-rank job ({@link SingletonBootstrap}). */
public final class SingletonBootstrapProvider implements BootstrapProvider {
    @Override
    public String name() {
        return "singleton";
    }

    @Override
    public int priority() {
        return 0;
    }

    @Override
    public boolean requested(Config config) {
        return true;
    }

    @Override
    public boolean isAvailable() {
        return true;
    }

    @Override
    public Throwable unavailabilityCause() {
        return null;
    }

    /**
     * @throws IllegalArgumentException if {@code GEX_SIZE} is above 1 (a job of several ranks needs a launcher)
     * @throws GexException if a PMIx server started this process but no bootstrap for it is on the class path: each
     *                      rank would otherwise run alone
     */
    @Override
    public Joined join(Config config, JobHealth health, ObjIntConsumer<String> joinOnce) {
        if (config.get("PMIX_NAMESPACE", null) != null && config.get("PMIX_RANK", null) != null) {
            throw new GexException("this rank runs under a PMIx server (PMIX_NAMESPACE="
                + config.get("PMIX_NAMESPACE", null) + " PMIX_RANK=" + config.get("PMIX_RANK", null)
                + "), but no bootstrap for it is on the class path: add gex-bootstrap-pmix (gex-all has it)");
        }
        final int size = config.getInt("GEX_SIZE", 1, 1, 1 << 20);
        final int rank = config.getInt("GEX_RANK", 0, 0, size - 1);
        final String jobId = config.get("GEX_JOB_ID", "solo" + ProcessHandle.current().pid());
        joinOnce.accept(jobId, rank);
        if (size > 1) {
            throw new IllegalArgumentException("GEX_SIZE=" + size + " needs GEX_BOOTSTRAP (start the job with gexrun)");
        }
        return new Joined(new SingletonBootstrap(), jobId, config);
    }
}
