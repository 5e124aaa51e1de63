package org.gexj.spi;

import org.gexj.Config;

import java.util.function.ObjIntConsumer;

/**
 * Found through {@link java.util.ServiceLoader}: one way for a rank to join its job ({@code <Name>BootstrapProvider}).
 * gex-core has {@code tcp} (the rendezvous of gexrun and {@code InProcessJob}) and {@code singleton} (no launcher);
 * gex-bootstrap-pmix adds {@code pmix} (a resource manager's PMIx server: {@code mpirun}, {@code srun --mpi=pmix}).
 *
 * <p>{@code Gex.init} asks the providers, highest {@link #priority()} first, whether this process's environment asks
 * for them ({@link #requested}), and joins through the first that says yes; if that one is not {@link #isAvailable()}
 * here, init fails saying why rather than trying the next (a rank that joined another way would be a job of its own).
 */
public interface BootstrapProvider {
    /** Name in messages: {@code tcp}, {@code pmix}, {@code singleton}. */
    String name();

    /**
     * Which provider is asked first: a launcher's own variables must win over ones its process inherited (gexrun
     * started inside an mpirun job sets {@code GEX_BOOTSTRAP}; its ranks still see mpirun's {@code PMIX_*}).
     */
    int priority();

    /** Cheap, reads only {@code config}: did the launcher that started this process set it up for this bootstrap? */
    boolean requested(Config config);

    /** Cheap probe: can this bootstrap run on this machine (native libraries...)? */
    boolean isAvailable();

    /** Why {@link #isAvailable()} is false, or {@code null}. */
    Throwable unavailabilityCause();

    /**
     * Collective: joins the job.
     *
     * @param joinOnce called with the job's id and this rank as soon as both are known, before this rank joins the
     *                 others where the bootstrap can tell them first; throws {@link IllegalStateException} if this
     *                 process has joined that rank of that job already (the provider then gives up what it holds)
     * @return the job's bootstrap and id, and the settings the conduits see (with the job's id and its secret)
     */
    Joined join(Config config, JobHealth health, ObjIntConsumer<String> joinOnce);

    /**
     * A joined job.
     *
     * @param config {@code init}'s settings with what the bootstrap learnt: {@code GEX_JOB_SECRET} in hexadecimal
     *               (conduits use it, udp's job cookie), and any defaults of this kind of job
     */
    record Joined(Bootstrap bootstrap, String jobId, Config config) {
    }
}
