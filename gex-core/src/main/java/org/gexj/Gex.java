package org.gexj;

import org.gexj.internal.ClientLayer;
import org.gexj.spi.Bootstrap;
import org.gexj.spi.BootstrapProvider;
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
 * {@code srun --mpi=pmix}) takes all of these from PMIx (gex-bootstrap-pmix). Without a launcher the process is a
 * one-rank job. Which of these applies is a {@link BootstrapProvider}'s to say.
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
        final JobHealth health = new JobHealth();
        final BootstrapProvider.Joined job = Bootstraps.select(config).join(config, health, Gex::joinOnce);
        return open(clientName, job.config(), job.jobId(), job.bootstrap(), health);
    }

    /** A process joins a given rank of a given job once. */
    private static void joinOnce(String jobId, int rank) {
        if (!JOINED.add(jobId + "/" + rank)) {
            throw new IllegalStateException("Gex.init: rank " + rank + " of job " + jobId
                + " has joined already in this process; a rank calls Gex.init once");
        }
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
            final Client client = new Client(clientName, rank, size, jobId, conduit, bootstrap, health, config,
                HostRanks.count(bootstrap));
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
