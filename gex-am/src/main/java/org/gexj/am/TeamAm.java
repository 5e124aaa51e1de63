package org.gexj.am;

import org.gexj.Client;
import org.gexj.Lc;

import java.lang.foreign.MemorySegment;

/**
 * The requests of {@link Am} addressed by rank in a team, as GASNet-EX's {@code gex_AM_Request*(tm, rank, ...)} take
 * a team and a rank in it: every send and limit query here takes the target's team rank and sends to its job rank.
 * The handlers are the client's ({@link Am#register}), and a handler's {@link Token#sourceRank()} is the sender's job
 * rank, as {@code gex_Token_Info}'s {@code gex_srcrank} is; replies go through the token as always. Made by
 * {@code Team.am()} of the collectives module; the job team's is {@link Am} itself.
 *
 * <p>A rank outside the team is refused with an {@link IllegalArgumentException} naming it and the team's range, before
 * anything is sent. Thread-safe, as {@link Am} is.
 */
public final class TeamAm extends AmRequestSends {
    private final Am am;
    /** Team rank to job rank; never changed. */
    private final int[] jobRanks;

    TeamAm(Am am, int[] jobRanks) {
        this.am = am;
        this.jobRanks = jobRanks.clone();
    }

    /** The client's AM layer, which sends by job rank. */
    public Am am() {
        return am;
    }

    public Client client() {
        return am.client;
    }

    /** Ranks in the team. */
    public int size() {
        return jobRanks.length;
    }

    /**
     * The job rank of team rank {@code rank}.
     *
     * @throws IllegalArgumentException if {@code rank} is outside [0, {@link #size()})
     */
    public int jobRank(int rank) {
        if (rank < 0 || rank >= jobRanks.length) {
            throw new IllegalArgumentException("team rank " + rank + " is not in this team's [0, " + jobRanks.length
                + ")");
        }
        return jobRanks[rank];
    }

    /** As {@link Am#maxRequestMedium}, {@code rank} a team rank (-1: any member). */
    public long maxRequestMedium(int rank, int nargs) {
        return am.maxRequestMedium(limitPeer(rank), nargs);
    }

    /** As {@link Am#maxReplyMedium}, {@code rank} a team rank (-1: any member). */
    public long maxReplyMedium(int rank, int nargs) {
        return am.maxReplyMedium(limitPeer(rank), nargs);
    }

    /** As {@link Am#maxRequestLong}, {@code rank} a team rank (-1: any member). */
    public long maxRequestLong(int rank, int nargs) {
        return am.maxRequestLong(limitPeer(rank), nargs);
    }

    /** As {@link Am#maxReplyLong}, {@code rank} a team rank (-1: any member). */
    public long maxReplyLong(int rank, int nargs) {
        return am.maxReplyLong(limitPeer(rank), nargs);
    }

    /** As {@link Am#prepareRequestMedium}, to team rank {@code rank}. */
    public SrcDesc prepareRequestMedium(int rank, MemorySegment clientBuffer, long leastPayload, long mostPayload,
                                        Lc lc, int flags, int nargs) {
        return am.prepareRequestMedium(jobRank(rank), clientBuffer, leastPayload, mostPayload, lc, flags, nargs);
    }

    /** As {@link Am#prepareRequestLong}, to team rank {@code rank}'s segment. */
    public SrcDesc prepareRequestLong(int rank, MemorySegment clientBuffer, long leastPayload, long mostPayload,
                                      long dest, Lc lc, int flags, int nargs) {
        return am.prepareRequestLong(jobRank(rank), clientBuffer, leastPayload, mostPayload, dest, lc, flags, nargs);
    }

    private int limitPeer(int rank) {
        return rank == -1 ? -1 : jobRank(rank);
    }

    @Override
    int request(int peer, int category, int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc,
                int flags, int nargs, int a0, int a1, int a2, int a3) {
        return am.request(jobRank(peer), category, handler, src, srcOffset, nbytes, dest, lc, flags, nargs, a0, a1, a2,
            a3);
    }

    @Override
    int request(int peer, int category, int handler, MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc,
                int flags, int[] args, int nargs) {
        return am.request(jobRank(peer), category, handler, src, srcOffset, nbytes, dest, lc, flags, args, nargs);
    }
}
