package org.gexj.testkit.emu;

import org.gexj.GexException;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How the emu ranks of one job, threads of one JVM, find each other: a static registry keyed by the job id. Each rank
 * {@link #join joins} before the bootstrap barrier of its open, reads every rank's conduit after it
 * ({@link #ranks}), and {@link #leave leaves} at close; the job's entry goes with its last rank.
 */
final class EmuJob {
    private static final ConcurrentHashMap<String, EmuJob> JOBS = new ConcurrentHashMap<>();

    private final String id;
    private final EmuConduit[] ranks;
    private int members;

    private EmuJob(String id, int size) {
        this.id = id;
        this.ranks = new EmuConduit[size];
    }

    /**
     * Registers {@code conduit} as {@code rank} of job {@code jobId} of {@code size} ranks.
     *
     * @throws IllegalStateException if the rank is registered already, or the job has another size
     */
    static EmuJob join(String jobId, int size, int rank, EmuConduit conduit) {
        while (true) {
            final EmuJob job = JOBS.computeIfAbsent(jobId, k -> new EmuJob(k, size));
            synchronized (job) {
                if (JOBS.get(jobId) != job) {
                    continue; // its last rank left meanwhile: start a new entry
                }
                if (job.ranks.length != size) {
                    throw new IllegalStateException("emu job " + jobId + " has " + job.ranks.length + " ranks; rank "
                        + rank + " joins it with GEX_SIZE=" + size);
                }
                if (job.ranks[rank] != null) {
                    throw new IllegalStateException("rank " + rank + " of emu job " + jobId + " is open already");
                }
                job.ranks[rank] = conduit;
                job.members++;
                return job;
            }
        }
    }

    /**
     * After the bootstrap barrier that follows every rank's {@link #join}.
     *
     * @return every rank's conduit, by rank
     * @throws GexException if a rank is missing (it failed to open, or closed already)
     */
    synchronized EmuConduit[] ranks() {
        for (int r = 0; r < ranks.length; r++) {
            if (ranks[r] == null) {
                throw new GexException("emu job " + id + ": rank " + r + " is not registered after the bootstrap"
                    + " barrier (it failed to open, or closed already)");
            }
        }
        return ranks.clone();
    }

    /** Unregisters {@code conduit}; the last rank removes the job. */
    synchronized void leave(int rank, EmuConduit conduit) {
        if (ranks[rank] == conduit) {
            ranks[rank] = null;
            if (--members == 0) {
                JOBS.remove(id, this);
            }
        }
    }

    /**
     * Rank {@code rank}'s conduit of job {@code jobId}, or null (for tests that drive a conduit beside the library).
     */
    static EmuConduit conduit(String jobId, int rank) {
        final EmuJob job = JOBS.get(jobId);
        if (job == null) {
            return null;
        }
        synchronized (job) {
            return job.ranks[rank];
        }
    }

    /** Whether job {@code jobId} has a registered rank in this JVM (for tests: close leaves nothing behind). */
    static boolean isRegistered(String jobId) {
        return JOBS.containsKey(jobId);
    }
}
