package org.gexj.spi;

import org.gexj.Config;

/**
 * What a conduit gets when it opens: where it sits in the job and the bootstrap channel to exchange addresses.
 *
 * @param rank      this process's rank in the job, 0..size-1
 * @param size      number of ranks
 * @param jobId     a job-unique name, safe for file names ([a-zA-Z0-9_-])
 * @param bootstrap out-of-band allgather and barrier
 * @param config    environment / system-property settings
 * @param health    where a conduit reports a peer it found dead, and where waits check for failures
 */
public record ConduitContext(int rank, int size, String jobId, Bootstrap bootstrap, Config config,
                             JobHealth health) {
}
