package org.gexj.coll;

import org.gexj.Client;
import org.gexj.am.Am;
import org.gexj.am.TeamAm;
import org.gexj.am.internal.AmAccess;
import org.gexj.rma.AtomicDomain;
import org.gexj.rma.AtomicOp;
import org.gexj.rma.AtomicType;
import org.gexj.rma.Rma;
import org.gexj.rma.Vis;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Queue;
import java.util.Set;

/**
 * A team ({@code gex_TM_t}): an ordered subset of the job's ranks, the scope of collectives. The job team holds every
 * rank in job order ({@link #job}); {@link #split} makes sub-teams. Ranks given to {@link Coll}'s collectives are
 * ranks of the team; {@link #jobRank} and {@link #teamRank} translate. {@link Am}, {@link Rma}, {@link Vis} and
 * {@link AtomicDomain} take job ranks; {@link #am()}, {@link #rma()}, {@link #vis()} and {@link #atomicDomain} take
 * the team's, as GASNet-EX's calls take a team and a rank in it.
 *
 * <p>Thread-safe. A team's collectives must be issued in the same order on every member (GASNet's rule); a rank's
 * splits run one at a time.
 */
public final class Team implements AutoCloseable {
    /** The color of a rank that joins no team in {@link #split} ({@code MPI_UNDEFINED}; GASNet's null team). */
    public static final int UNDEFINED = -1;
    /** What {@link #teamRank} returns for a job rank outside the team ({@code GEX_RANK_INVALID}). */
    public static final int INVALID_RANK = -1;

    private final Coll coll;
    final int id;
    private final int rank;
    private final int size;
    /** Team rank to job rank; null for the job team, whose ranks are the job's. */
    private final int[] jobRanks;
    /** Job rank to team rank or {@link #INVALID_RANK}; null for the job team. */
    private final int[] teamRanks;
    private int issued;
    private volatile boolean closed;
    /** Tree shapes by root, binomial and flat, made on first use by the delivery thread (which alone reads them). */
    private TreeShape[] binomial;
    private TreeShape[] flat;
    private volatile TeamAm am;
    private volatile TeamRma rma;
    private volatile TeamVis vis;
    /** The collectives' flow control on this team: the delivery thread's alone ({@link CollEngine}). */
    final CollFlow flow;

    Team(Coll coll, int id, int rank, int[] jobRanks) {
        this.coll = coll;
        this.id = id;
        this.rank = rank;
        this.jobRanks = jobRanks;
        this.size = jobRanks == null ? coll.client().size() : jobRanks.length;
        this.flow = new CollFlow(size);
        if (jobRanks == null) {
            this.teamRanks = null;
        } else {
            this.teamRanks = new int[coll.client().size()];
            Arrays.fill(teamRanks, INVALID_RANK);
            for (int r = 0; r < jobRanks.length; r++) {
                teamRanks[jobRanks[r]] = r;
            }
        }
    }

    /** The job team ({@code GEX_TM_PRIMORDIAL}'s): every rank, in job order. */
    public static Team job(Client client) {
        return Coll.of(client).jobTeam();
    }

    public Client client() {
        return coll.client();
    }

    /** This rank's rank in the team. */
    public int rank() {
        return rank;
    }

    public int size() {
        return size;
    }

    public boolean isJobTeam() {
        return jobRanks == null;
    }

    /**
     * The job rank of the team's rank {@code teamRank} ({@code gex_TM_TranslateRankToJobrank}).
     *
     * @throws IllegalArgumentException if {@code teamRank} is not in [0, size)
     */
    public int jobRank(int teamRank) {
        if (teamRank < 0 || teamRank >= size) {
            throw new IllegalArgumentException("team rank " + teamRank + " is not in this team's [0, " + size + ")");
        }
        return jobRanks == null ? teamRank : jobRanks[teamRank];
    }

    /**
     * Active-message requests to the team's ranks ({@code gex_AM_Request*(tm, rank, ...)}): the client's handlers,
     * addressed by team rank. Handlers see the sender's job rank, as in GASNet-EX.
     */
    public TeamAm am() {
        TeamAm a = am;
        if (a == null) {
            a = AmAccess.get().onTeam(Am.of(client()), allJobRanks());
            am = a; // a benign race: every thread makes the same
        }
        return a;
    }

    /** Puts and gets to and from the team's ranks ({@code gex_RMA_*(tm, rank, ...)}), addressed by team rank. */
    public TeamRma rma() {
        TeamRma r = rma;
        if (r == null) {
            r = new TeamRma(this, Rma.of(client()));
            rma = r;
        }
        return r;
    }

    /**
     * Non-contiguous puts and gets to and from the team's ranks ({@code gex_VIS_*(tm, rank, ...)}), addressed by team
     * rank.
     */
    public TeamVis vis() {
        TeamVis v = vis;
        if (v == null) {
            v = new TeamVis(this, Vis.of(client()));
            vis = v;
        }
        return v;
    }

    /**
     * An atomic domain over the team ({@code gex_AD_Create(&ad, tm, dt, ops, flags)}): its operations name team ranks.
     * As {@link AtomicDomain#create}, whose checks it makes; each call makes a new domain, which the caller closes.
     *
     * @throws IllegalStateException if the team is closed
     */
    public TeamAtomicDomain atomicDomain(AtomicType type, Set<AtomicOp> ops, int flags) {
        checkOpen();
        return new TeamAtomicDomain(this, AtomicDomain.create(client(), type, ops, flags));
    }

    private int[] allJobRanks() {
        final int[] all = new int[size];
        for (int i = 0; i < size; i++) {
            all[i] = jobRanks == null ? i : jobRanks[i];
        }
        return all;
    }

    /**
     * The team rank of job rank {@code jobRank}, or {@link #INVALID_RANK} if it is not a member
     * ({@code gex_TM_TranslateJobrankToRank}).
     *
     * @throws IllegalArgumentException if {@code jobRank} is not in the job's [0, size)
     */
    public int teamRank(int jobRank) {
        final int jobSize = coll.client().size();
        if (jobRank < 0 || jobRank >= jobSize) {
            throw new IllegalArgumentException("job rank " + jobRank + " is not in the job's [0, " + jobSize + ")");
        }
        return teamRanks == null ? jobRank : teamRanks[jobRank];
    }

    /** The team rank of a job rank known to be in the job; {@link #INVALID_RANK} if not a member. */
    int teamRankUnchecked(int jobRank) {
        return teamRanks == null ? jobRank : teamRanks[jobRank];
    }

    /**
     * Collective over this team ({@code gex_TM_Split}): the members that pass the same {@code color} form a new team,
     * ranked by {@code key}, ties broken by their rank here. Blocks (polling) until every member has called it.
     *
     * @param color {@code >= 0}, or {@link #UNDEFINED} to join no new team
     * @return this rank's new team, or null for {@link #UNDEFINED}
     * @throws IllegalArgumentException if {@code color} is negative and not {@link #UNDEFINED}
     */
    public Team split(int color, int key) {
        if (color < 0 && color != UNDEFINED) {
            throw new IllegalArgumentException("color " + color + " is neither >= 0 nor Team.UNDEFINED (-1)");
        }
        checkOpen();
        synchronized (coll.splits) {
            // every member's color, key and proposed id, gathered by a bitwise-OR reduction of one slot each
            final long slot = 16;
            final Arena arena = Arena.ofAuto(); // not heap: see CollOperation's NOTHING
            final MemorySegment table = arena.allocate(slot * size, 8);
            final MemorySegment all = arena.allocate(slot * size, 8);
            table.set(ValueLayout.JAVA_INT_UNALIGNED, rank * slot, color);
            table.set(ValueLayout.JAVA_INT_UNALIGNED, rank * slot + 4, key);
            table.set(ValueLayout.JAVA_INT_UNALIGNED, rank * slot + 8, coll.nextTeamId());
            coll.reduceToAllNb(this, all, table, AtomicType.INT64, 2L * size, ReduceOp.OR).await();
            if (color == UNDEFINED) {
                return null;
            }
            int members = 0;
            int id = 0;
            final long[] order = new long[size];
            for (int r = 0; r < size; r++) {
                if (all.get(ValueLayout.JAVA_INT_UNALIGNED, r * slot) == color) {
                    // (key, rank here) in one sortable long
                    order[members++] = (long) all.get(ValueLayout.JAVA_INT_UNALIGNED, r * slot + 4) << 32 | r;
                    id = Math.max(id, all.get(ValueLayout.JAVA_INT_UNALIGNED, r * slot + 8));
                }
            }
            Arrays.sort(order, 0, members);
            final int[] ranks = new int[members];
            int mine = -1;
            for (int i = 0; i < members; i++) {
                final int here = (int) order[i];
                ranks[i] = jobRank(here);
                if (here == rank) {
                    mine = i;
                }
            }
            // no member holds an id as large as the largest any member proposed
            coll.reserveTeamIds(id + 1);
            return new Team(coll, id, mine, ranks);
        }
    }

    /**
     * Collective over this team ({@code gex_TM_Create} with explicit members): {@code members} lists, in their new
     * order, the ranks here of the team this rank joins; every member passes the same list, and lists of different
     * callers are the same or disjoint. Blocks (polling) until every member of this team has called it.
     *
     * @param members ranks of this team, this rank among them; empty to join no new team
     * @return this rank's new team, or null for an empty list
     * @throws IllegalArgumentException if a rank is out of [0, size), repeated, or the list leaves out this rank; or,
     *                                  after the collective, if the members' lists differed
     */
    public Team create(int... members) {
        final boolean[] seen = new boolean[size];
        int mine = -1;
        for (int i = 0; i < members.length; i++) {
            final int m = members[i];
            if (m < 0 || m >= size) {
                throw new IllegalArgumentException("member " + m + " is not a rank of " + this + ": [0, " + size
                    + ")");
            }
            if (seen[m]) {
                throw new IllegalArgumentException("member " + m + " is listed twice");
            }
            seen[m] = true;
            if (m == rank) {
                mine = i;
            }
        }
        if (members.length > 0 && mine < 0) {
            throw new IllegalArgumentException("the members " + Arrays.toString(members) + " leave out this rank ("
                + rank + "); a rank not in a new team passes no members");
        }
        // a team is named by its first member (lists are the same or disjoint) and ordered by place in the list
        final Team made = split(members.length == 0 ? UNDEFINED : members[0], mine);
        if (made != null) {
            boolean same = made.size == members.length;
            for (int i = 0; same && i < members.length; i++) {
                same = made.jobRank(i) == jobRank(members[i]);
            }
            if (!same) {
                throw new IllegalArgumentException("the members' lists differ: this rank passed "
                    + Arrays.toString(members) + ", but the ranks that named the same first member made a team of "
                    + made.size);
            }
        }
        return made;
    }

    /**
     * Collective over this team ({@code gex_TM_Destroy}): a barrier, after which the team takes no more collectives.
     * Each member's collectives on it must be complete. Closing a closed team does nothing.
     *
     * @throws IllegalStateException for the job team, which lives as long as the client
     */
    @Override
    public void close() {
        if (jobRanks == null) {
            throw new IllegalStateException("the job team cannot be closed; it lives as long as its client");
        }
        if (closed) {
            return;
        }
        coll.barrierNb(this).await();
        closed = true;
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("team " + id + " is closed");
        }
    }

    /** This rank's view of the tree rooted at {@code root} with {@code radix}: 2, or the team's size or more (flat). */
    TreeShape shape(int root, int radix) {
        assert radix == 2 || radix >= size : "radix " + radix + " of a team of " + size + " is neither 2 nor flat";
        final boolean isFlat = radix >= size;
        TreeShape[] cache = isFlat ? flat : binomial;
        if (cache == null) {
            cache = new TreeShape[size];
            if (isFlat) {
                flat = cache;
            } else {
                binomial = cache;
            }
        }
        TreeShape shape = cache[root];
        if (shape == null) {
            shape = new TreeShape(rank, size, root, isFlat ? Math.max(2, size) : 2);
            cache[root] = shape;
        }
        return shape;
    }

    /**
     * Numbers {@code op} with the team's next sequence (issue order, which every member agrees on) and queues it, under
     * the team's lock: the queue holds a team's collectives in sequence order, so the delivery thread starts them in
     * that order. @return false, numbering none, if the queue is full
     */
    synchronized boolean issue(CollOperation op, Queue<CollOperation> queue) {
        op.sequence = issued;
        if (!queue.offer(op)) {
            return false;
        }
        issued++;
        return true;
    }

    /**
     * Numbers {@code op} without queueing it, where {@code queue} is empty: the caller, holding the client's delivery
     * (so that nothing is taken from the queue meanwhile), starts it before any later collective of the team. Under
     * the team's lock, as {@link #issue}. @return false, numbering none, if something is queued
     */
    synchronized boolean issueFirst(CollOperation op, Queue<CollOperation> queue) {
        if (!queue.isEmpty()) {
            return false;
        }
        op.sequence = issued++;
        return true;
    }

    Coll coll() {
        return coll;
    }

    @Override
    public String toString() {
        return "team " + id + " (rank " + rank + " of " + size + ")";
    }
}
