package org.gexj.coll;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.coll.wire.CollArgs;
import org.gexj.internal.CoreAccess;
import org.gexj.rma.AtomicType;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Collectives over a {@link Team} ({@code gex_Coll_*}), each non-blocking: the returned {@link Event} completes when
 * this rank's part is done (its {@code dst} holds the result; its {@code src} may be reused). As in GASNet-EX, every
 * member calls the same collectives on a team in the same order, with the same root and size; many may be in flight
 * at once, on one team or several. On a team of one rank a collective is done before its call returns
 * ({@link Event#DONE}). A member whose call differs fails its event with a message naming the difference,
 * and tells the others, whose events fail too: nothing waits for ever. Where no message would show the difference (a
 * reduction's members naming two roots, each group's tree complete but for the other's ranks), a collective that has
 * heard nothing for {@code GEX_COLL_PROBE_MS} (1000) asks the other members, once, to compare their calls; a member
 * that is only late fails nothing. A dead member fails every wait, naming it.
 *
 * <p>Over AM, on every conduit: a dissemination barrier; broadcasts and reductions along a tree, flat (the root talks
 * to every rank) for data up to {@code GEX_COLL_FLAT_BELOW} bytes (4096) on teams of up to {@code GEX_COLL_FLAT_RANKS}
 * ranks (4), else binomial. Data of any size up to 2 GiB - 1 moves in Medium-sized pieces. Operations, their buffers,
 * the pieces that come early and the tree shapes are pooled and reused, so that a loop of collectives leaves the
 * garbage collector next to nothing (its pauses would be the slowest part of a small collective).
 *
 * <p>Not callable from a handler. Memory given as {@code dst} and {@code src} may be on or off the heap; it must stay
 * alive until the event completes.
 */
public final class Coll {
    private static final CoreAccess CORE = CoreAccess.get();

    private final Client client;
    private final CollEngine engine;
    private final Team jobTeam;
    /** Held by a rank's splits, one at a time, so that the ids they propose are each this rank's next. */
    final Object splits = new Object();
    private int nextTeamId = 1;

    private Coll(Client client) {
        this.client = client;
        this.engine = new CollEngine(client);
        this.jobTeam = new Team(this, 0, client.rank(), null);
    }

    /** The client's collectives; created on every rank by {@code Gex.init}. */
    public static Coll of(Client client) {
        return CORE.extension(client, Coll.class, Coll::new);
    }

    public Client client() {
        return client;
    }

    Team jobTeam() {
        return jobTeam;
    }

    /** For tests (by reflection, from the conformance kit): what the engine holds, or null if busy; see its doc. */
    java.util.Map<String, Integer> held() {
        return engine.held();
    }

    synchronized int nextTeamId() {
        return nextTeamId;
    }

    synchronized void reserveTeamIds(int next) {
        nextTeamId = Math.max(nextTeamId, next);
    }

    /**
     * A barrier over {@code team} ({@code gex_Coll_BarrierNB}): the event completes once every member has called it.
     * Separate from {@link Client#barrier()}, whose phases it does not count.
     */
    public Event barrierNb(Team team) {
        check(team);
        return submit(team, CollOperation.BARRIER, 0, 0, null, null, null, 1);
    }

    /** {@link #barrierNb} and a wait for it. */
    public void barrier(Team team) {
        barrierNb(team).await();
    }

    /**
     * Copies {@code nbytes} of the root's {@code src} into every member's {@code dst}, the root's included
     * ({@code gex_Coll_BroadcastNB}).
     *
     * @param src read on the root only (may be null elsewhere)
     * @throws IllegalArgumentException if {@code root} is not a rank of the team, {@code nbytes} is negative or over
     *                                  2^31 - 1, or a buffer is missing, too small, read-only or closed
     */
    public Event broadcastNb(Team team, int root, MemorySegment dst, MemorySegment src, long nbytes) {
        check(team);
        checkRoot(team, root);
        final int length = checkLength(nbytes, "nbytes");
        checkDst(dst, length);
        if (team.rank() == root) {
            checkSrc(src, length);
        }
        return submit(team, CollOperation.BROADCAST, root, length, dst, src, null, 1);
    }

    /**
     * Combines {@code count} elements of {@code type} from every member's {@code src} with {@code op}, into the root's
     * {@code dst} ({@code gex_Coll_ReduceToOneNB}).
     *
     * @param dst written on the root only (may be null elsewhere)
     * @throws IllegalArgumentException if {@code op} does not take {@code type}, the root is not a rank of the team,
     *                                  or a buffer is missing, too small, read-only or closed
     */
    public Event reduceToOneNb(Team team, int root, MemorySegment dst, MemorySegment src, AtomicType type, long count,
                               ReduceOp op) {
        Objects.requireNonNull(type, "type");
        return reduceToOneNb(team, root, dst, src, type.bytes(), count, Reduction.of(type, Objects.requireNonNull(op,
            "op")));
    }

    /**
     * {@link #reduceToOneNb(Team, int, MemorySegment, MemorySegment, AtomicType, long, ReduceOp)} with a user-defined
     * operator on elements of {@code elementSize} bytes ({@code GEX_OP_USER}, any {@code gex_DT_t}).
     */
    public Event reduceToOneNb(Team team, int root, MemorySegment dst, MemorySegment src, long elementSize, long count,
                               ReduceFunction op) {
        check(team);
        checkRoot(team, root);
        final int length = checkElements(elementSize, count, op);
        checkSrc(src, length);
        if (team.rank() == root) {
            checkDst(dst, length);
        }
        return submit(team, CollOperation.REDUCE, root, length, dst, src, op, elementSize);
    }

    /**
     * Combines {@code count} elements of {@code type} from every member's {@code src} with {@code op}, into every
     * member's {@code dst} ({@code gex_Coll_ReduceToAllNB}); every member gets the same bits.
     */
    public Event reduceToAllNb(Team team, MemorySegment dst, MemorySegment src, AtomicType type, long count,
                               ReduceOp op) {
        Objects.requireNonNull(type, "type");
        return reduceToAllNb(team, dst, src, type.bytes(), count, Reduction.of(type, Objects.requireNonNull(op, "op")));
    }

    /** {@link #reduceToAllNb(Team, MemorySegment, MemorySegment, AtomicType, long, ReduceOp)}, user-defined. */
    public Event reduceToAllNb(Team team, MemorySegment dst, MemorySegment src, long elementSize, long count,
                               ReduceFunction op) {
        check(team);
        final int length = checkElements(elementSize, count, op);
        checkSrc(src, length);
        checkDst(dst, length);
        return submit(team, CollOperation.REDUCE_ALL, 0, length, dst, src, op, elementSize);
    }

    private Event submit(Team team, int kind, int root, int length, MemorySegment dst, MemorySegment src,
                         ReduceFunction op, long elementSize) {
        if (team.size() == 1) {
            // alone: nothing to wait for or send (testteam's one-rank column teams took 0.8 us a barrier queued)
            if (kind != CollOperation.BARRIER && length > 0) {
                MemorySegment.copy(src, 0, dst, 0, length);
            }
            return Event.DONE;
        }
        return engine.submit(team, kind, root, length, dst, src, op, elementSize);
    }

    private void check(Team team) {
        Objects.requireNonNull(team, "team");
        if (team.coll() != this) {
            throw new IllegalArgumentException(team + " belongs to another client");
        }
        CORE.checkOpenAndNotRestricted(client, "a collective");
        team.checkOpen();
    }

    private static void checkRoot(Team team, int root) {
        if (root < 0 || root >= team.size()) {
            throw new IllegalArgumentException("root " + root + " is not a rank of " + team + ": [0, " + team.size()
                + ")");
        }
        if (root > CollArgs.MAX_ROOT) {
            throw new IllegalArgumentException("root " + root + " is over " + CollArgs.MAX_ROOT);
        }
    }

    private static int checkLength(long bytes, String what) {
        if (bytes < 0 || bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(what + " " + bytes + " is not in [0, " + Integer.MAX_VALUE + "]");
        }
        return (int) bytes;
    }

    private static int checkElements(long elementSize, long count, ReduceFunction op) {
        Objects.requireNonNull(op, "op");
        if (elementSize < 1 || elementSize > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("elementSize " + elementSize + " is not in [1, " + Integer.MAX_VALUE
                + "]");
        }
        if (count < 0 || count > Integer.MAX_VALUE / elementSize) {
            throw new IllegalArgumentException("count " + count + " of " + elementSize + "-byte elements is not in [0, "
                + Integer.MAX_VALUE / elementSize + "]");
        }
        return (int) (count * elementSize);
    }

    private static void checkSrc(MemorySegment src, int length) {
        Objects.requireNonNull(src, "src");
        checkAlive(src, "src");
        if (src.byteSize() < length) {
            throw new IllegalArgumentException("src holds " + src.byteSize() + " bytes, fewer than the " + length
                + " the collective reads");
        }
    }

    private static void checkDst(MemorySegment dst, int length) {
        Objects.requireNonNull(dst, "dst");
        checkAlive(dst, "dst");
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("dst is read-only");
        }
        if (dst.byteSize() < length) {
            throw new IllegalArgumentException("dst holds " + dst.byteSize() + " bytes, fewer than the " + length
                + " the collective writes");
        }
    }

    private static void checkAlive(MemorySegment m, String what) {
        if (!m.scope().isAlive()) {
            throw new IllegalArgumentException(what + "'s arena is closed");
        }
    }
}
