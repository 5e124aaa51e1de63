package org.gexj;

import org.gexj.bootstrap.JobSecret;
import org.gexj.bootstrap.PmixBootstrap;
import org.gexj.bootstrap.SingletonBootstrap;
import org.gexj.bootstrap.TcpBootstrap;
import org.gexj.internal.ClientLayer;
import org.gexj.spi.Bootstrap;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.JobHealth;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Entry point ({@code gex_Client_Init}). The launcher ({@code gexrun} or {@code InProcessJob}) tells each rank
 * where it is through {@code GEX_RANK}, {@code GEX_SIZE}, {@code GEX_BOOTSTRAP}, {@code GEX_JOB_SECRET},
 * {@code GEX_JOB_ID} ({@code GEX_JOB_SECRET=-}: the secret is the first line of stdin, as gexrun's ssh spawner sends
 * it); {@code GEX_CONDUIT} chooses the conduit (default {@code smp}). A rank started by a resource manager's PMIx
 * server ({@code PMIX_NAMESPACE} and {@code PMIX_RANK} set, {@code GEX_BOOTSTRAP} not: {@code mpirun},
 * {@code srun --mpi=pmix}) takes all of these from PMIx. Without a launcher the process is a one-rank job.
 */
public final class Gex {
    private static final Pattern CLIENT_NAME = Pattern.compile("[A-Z][A-Z0-9_]+");
    /** {@code jobId/rank} of every client this process has created. */
    private static final Set<String> JOINED = ConcurrentHashMap.newKeySet();

    private Gex() {
    }

    /**
     * Collective: joins the job described by the environment, which the launcher sets (GASNet's {@code argc/argv}
     * carry nothing for GEX/J: the program's arguments are all its own); returns after an implicit barrier.
     */
    public static Client init(String clientName) {
        return init(clientName, Config.fromEnvironment());
    }

    /**
     * Collective: joins the job described by {@code config}; returns after an implicit barrier. A process joins a
     * given job once (one client per rank, as in GASNet-EX); ranks of an in-process job are distinct.
     *
     * @throws IllegalStateException if this rank of this job has joined already in this process
     */
    public static Client init(String clientName, Config config) {
        if (clientName == null || !CLIENT_NAME.matcher(clientName).matches()) {
            throw new IllegalArgumentException("client name '" + clientName + "' must match [A-Z][A-Z0-9_]+");
        }
        if (PmixBootstrap.requested(config)) {
            return initUnderPmix(clientName, config);
        }
        final int size = config.getInt("GEX_SIZE", 1, 1, 1 << 20);
        final int rank = config.getInt("GEX_RANK", 0, 0, size - 1);
        final String jobId = config.get("GEX_JOB_ID", "solo" + ProcessHandle.current().pid());
        if (!JOINED.add(jobId + "/" + rank)) {
            throw new IllegalStateException("Gex.init: rank " + rank + " of job " + jobId
                + " has joined already in this process; a rank calls Gex.init once");
        }
        final JobHealth health = new JobHealth();
        final String address = config.get("GEX_BOOTSTRAP", null);
        if (address == null && size > 1) {
            throw new IllegalArgumentException("GEX_SIZE=" + size + " needs GEX_BOOTSTRAP (start the job with gexrun)");
        }
        if (address != null) {
            // before the conduit opens: conduits use the secret too (udp's job cookie)
            config = JobSecret.resolve(config);
        }
        final Bootstrap bootstrap = address == null ? new SingletonBootstrap()
            : TcpBootstrap.connect(config, rank, size, health);
        return open(clientName, config, jobId, bootstrap, health);
    }

    /**
     * A rank started by a resource manager's PMIx server ({@code mpirun}, {@code srun --mpi=pmix}): rank and size come
     * from PMIx, not from {@code GEX_RANK}/{@code GEX_SIZE}; the job id and secret from {@link PmixBootstrap}; and, as
     * under gexrun, a rank ends its process when the job fails ({@code GEX_EXIT_ON_FAILURE} defaults to 1).
     */
    private static Client initUnderPmix(String clientName, Config config) {
        final JobHealth health = new JobHealth();
        final PmixBootstrap bootstrap = PmixBootstrap.init(config, health);
        if (!JOINED.add(bootstrap.jobId() + "/" + bootstrap.rank())) {
            bootstrap.close();
            throw new IllegalStateException("Gex.init: rank " + bootstrap.rank() + " of job " + bootstrap.jobId()
                + " has joined already in this process; a rank calls Gex.init once");
        }
        Config jobConfig = config.with("GEX_JOB_ID", bootstrap.jobId())
            .with("GEX_JOB_SECRET", bootstrap.secretHex());
        if (config.get("GEX_EXIT_ON_FAILURE", null) == null) {
            jobConfig = jobConfig.with("GEX_EXIT_ON_FAILURE", "1");
        }
        return open(clientName, jobConfig, bootstrap.jobId(), bootstrap, health);
    }

    /** Opens the conduit over {@code bootstrap} and the client; on failure aborts the job naming this rank. */
    private static Client open(String clientName, Config config, String jobId, Bootstrap bootstrap, JobHealth health) {
        final int rank = bootstrap.rank();
        final int size = bootstrap.size();
        Conduit conduit = null;
        try {
            final String conduitName = config.get("GEX_CONDUIT", Conduits.DEFAULT);
            conduit = Conduits.find(conduitName)
                .open(new ConduitContext(rank, size, jobId, bootstrap, config, health));
            final Client client = new Client(clientName, rank, size, jobId, conduit, bootstrap, health, config);
            // library handlers are registered on every rank before any rank leaves init (see ClientLayer)
            for (ClientLayer layer : ClientLayer.all()) {
                layer.open(client);
            }
            bootstrap.barrier();
            return client;
        } catch (RuntimeException | Error e) {
            if (conduit != null) {
                conduit.close();
            }
            bootstrap.abort("rank " + rank + " failed in Gex.init: " + e);
            throw e;
        }
    }
}
