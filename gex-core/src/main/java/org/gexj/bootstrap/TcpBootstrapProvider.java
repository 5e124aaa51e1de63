package org.gexj.bootstrap;

import org.gexj.Config;
import org.gexj.spi.BootstrapProvider;
import org.gexj.spi.JobHealth;

import java.util.function.ObjIntConsumer;

/**
 * A rank of a job that gexrun or {@code InProcessJob} started: {@code GEX_BOOTSTRAP} is the rendezvous' address,
 * {@code GEX_RANK}, {@code GEX_SIZE}, {@code GEX_JOB_ID} and {@code GEX_JOB_SECRET} the rest ({@link TcpBootstrap}).
 */
public final class TcpBootstrapProvider implements BootstrapProvider {
    /** Above pmix: gexrun's own variables win over an enclosing mpirun's. */
    public static final int PRIORITY = 200;

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public boolean requested(Config config) {
        return config.get("GEX_BOOTSTRAP", null) != null;
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
    public Joined join(Config config, JobHealth health, ObjIntConsumer<String> joinOnce) {
        final int size = config.getInt("GEX_SIZE", 1, 1, 1 << 20);
        final int rank = config.getInt("GEX_RANK", 0, 0, size - 1);
        final String jobId = config.get("GEX_JOB_ID", "solo" + ProcessHandle.current().pid());
        joinOnce.accept(jobId, rank);
        // before the conduit opens: conduits use the secret too (udp's job cookie)
        final Config resolved = JobSecret.resolve(config);
        return new Joined(TcpBootstrap.connect(resolved, rank, size, health), jobId, resolved);
    }
}
