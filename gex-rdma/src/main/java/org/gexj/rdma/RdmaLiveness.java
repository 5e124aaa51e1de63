package org.gexj.rdma;

import org.gexj.PeerFailedException;
import org.gexj.spi.JobHealth;

/**
 * Peer timeouts and failures: a peer that owes this rank something and stays silent for the conduit's timeout is
 * unreachable, and the job fails naming it ({@link #fail}).
 *
 * <p>Threads: {@link #heard} and {@link #watch} are called by the polling thread alone (one at a time), which alone
 * uses the silence bookkeeping; {@link #watch} takes the {@link RdmaGuard} lock to read the credits and the RMA
 * operations. {@link #fail} may be called by any thread.
 */
final class RdmaLiveness {
    /** How often polls look for peers that owe this rank something and stay silent ({@link #watch}). */
    private static final long WATCH_NS = 10_000_000L;
    /**
     * How long a transport failure waits for the launcher's report of the same event before it is reported itself: a
     * peer that exits closes its endpoint, and a provider that reports that at once (sockets: an inject fails with
     * ENOENT) would otherwise name the symptom, not the exit or crash the launcher names milliseconds later.
     */
    private static final long CAUSE_GRACE_NS = 1_000_000_000L;

    private final RdmaGuard guard;
    private final JobHealth health;
    private final int rank;
    private final int size;
    private final long timeoutNanos;
    private final String nic;
    private final String timeoutSetting;
    /** Peers heard from (a message, a remote write, an RMA completion) since the last look. */
    private final boolean[] heardFrom;
    /** Since when each peer has owed this rank something without being heard from. */
    private final long[] silentSince;
    private final int[] rmaInFlight;
    private long watchedAt;

    RdmaLiveness(RdmaGuard guard, JobHealth health, int rank, int size, long timeoutNanos, String nic,
                 String timeoutSetting) {
        this.guard = guard;
        this.health = health;
        this.rank = rank;
        this.size = size;
        this.timeoutNanos = timeoutNanos;
        this.nic = nic;
        this.timeoutSetting = timeoutSetting;
        this.heardFrom = new boolean[size];
        this.silentSince = new long[size];
        java.util.Arrays.fill(silentSince, System.nanoTime());
        this.rmaInFlight = new int[size];
    }

    /** Polling thread: something came from {@code peer}. */
    void heard(int peer) {
        heardFrom[peer] = true;
    }

    /**
     * Fails the job naming {@code peer}, unless the launcher reports a failure within {@link #CAUSE_GRACE_NS}, and
     * throws the job's {@link PeerFailedException}: the first failure recorded.
     */
    void fail(int peer, String reason) {
        final long deadline = System.nanoTime() + CAUSE_GRACE_NS;
        while (!health.failed() && System.nanoTime() - deadline < 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
        }
        health.fail(peer, reason);
        health.check();
        throw new PeerFailedException(peer, reason); // not reached: the job has failed
    }

    /**
     * Every {@link #WATCH_NS} of polling: a peer that owes this rank something — credits for frames sent to it, which
     * it returns once it has taken them, or completions of RMA chunks in flight to it — and from which nothing came
     * for the conduit's timeout is unreachable (a partition: over tcp;ofi_rxm the kernel retransmits for minutes
     * before libfabric reports anything), and the job fails naming it. A peer that owes nothing may be silent for ever.
     *
     * @return true if it looked (the caller then returns owed credits, however few, so that a peer busy with others
     *         never waits on them)
     */
    boolean watch(RdmaSendPath send, RdmaRmaEngine rma) {
        final long now = System.nanoTime();
        if (now - watchedAt < WATCH_NS) {
            return false;
        }
        watchedAt = now;
        int unreachable = -1;
        guard.lock();
        try {
            rma.countInFlight(rmaInFlight);
            for (int p = 0; p < size; p++) {
                final boolean owes = send.owesCredits(p) || rmaInFlight[p] > 0;
                if (p == rank || heardFrom[p] || !owes) {
                    heardFrom[p] = false;
                    silentSince[p] = now;
                } else if (unreachable < 0 && now - silentSince[p] > timeoutNanos) {
                    unreachable = p;
                }
            }
        } finally {
            guard.unlock();
        }
        if (unreachable >= 0) {
            fail(unreachable, "rank " + unreachable + " unreachable over " + nic + ": nothing came from it"
                + " for " + timeoutNanos / 1_000_000_000L + " s while it owed this rank credits or RMA completions ("
                + timeoutSetting + ")");
        }
        return true;
    }
}
