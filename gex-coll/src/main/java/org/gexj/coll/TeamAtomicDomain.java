package org.gexj.coll;

import org.gexj.Event;
import org.gexj.rma.AtomicDomain;
import org.gexj.rma.AtomicOp;
import org.gexj.rma.AtomicType;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * An {@link AtomicDomain} whose targets are ranks of a team, as GASNet-EX's {@code gex_AD_Create(&ad, tm, ...)} makes
 * a domain over a team and its {@code gex_AD_Op*} calls name a rank in it. Each operation takes the target's team
 * rank and acts on its job rank's segment with {@link AtomicDomain}'s semantics, checks, flags and completion;
 * atomicity holds among the operations of this domain, as for any domain. Made by {@link Team#atomicDomain}.
 *
 * <p>A rank outside the team is refused with an {@link IllegalArgumentException} naming it and the team's range, before
 * anything is sent. Closing closes the underlying domain. Thread-safe, as {@link AtomicDomain} is.
 */
public final class TeamAtomicDomain implements AutoCloseable {
    private final Team team;
    private final AtomicDomain domain;

    TeamAtomicDomain(Team team, AtomicDomain domain) {
        this.team = team;
        this.domain = domain;
    }

    public Team team() {
        return team;
    }

    /** The underlying domain, which takes job ranks. */
    public AtomicDomain domain() {
        return domain;
    }

    public AtomicType type() {
        return domain.type();
    }

    /** The operations it takes ({@code gex_AD_QueryOps}). */
    public Set<AtomicOp> ops() {
        return domain.ops();
    }

    /** The flags it was created with ({@code gex_AD_QueryFlags}). */
    public int flags() {
        return domain.flags();
    }

    /** As {@link AtomicDomain#close}. */
    @Override
    public void close() {
        domain.close();
    }

    /** As {@link AtomicDomain#opLong}, on team rank {@code rank}. */
    public long opLong(int rank, long offset, AtomicOp op, long operand1, long operand2, int flags) {
        return domain.opLong(team.jobRank(rank), offset, op, operand1, operand2, flags);
    }

    /** As {@link AtomicDomain#opLongNb}, on team rank {@code rank}. */
    public Event opLongNb(MemorySegment result, long resultOffset, int rank, long offset, AtomicOp op, long operand1,
                          long operand2, int flags) {
        return domain.opLongNb(result, resultOffset, team.jobRank(rank), offset, op, operand1, operand2, flags);
    }

    /** As {@link AtomicDomain#opLongNbi}, on team rank {@code rank}. */
    public int opLongNbi(MemorySegment result, long resultOffset, int rank, long offset, AtomicOp op, long operand1,
                         long operand2, int flags) {
        return domain.opLongNbi(result, resultOffset, team.jobRank(rank), offset, op, operand1, operand2, flags);
    }

    /** As {@link AtomicDomain#opDouble}, on team rank {@code rank}. */
    public double opDouble(int rank, long offset, AtomicOp op, double operand1, double operand2, int flags) {
        return domain.opDouble(team.jobRank(rank), offset, op, operand1, operand2, flags);
    }

    /** As {@link AtomicDomain#opDoubleNb}, on team rank {@code rank}. */
    public Event opDoubleNb(MemorySegment result, long resultOffset, int rank, long offset, AtomicOp op,
                            double operand1, double operand2, int flags) {
        return domain.opDoubleNb(result, resultOffset, team.jobRank(rank), offset, op, operand1, operand2, flags);
    }

    /** As {@link AtomicDomain#opDoubleNbi}, on team rank {@code rank}. */
    public int opDoubleNbi(MemorySegment result, long resultOffset, int rank, long offset, AtomicOp op,
                           double operand1, double operand2, int flags) {
        return domain.opDoubleNbi(result, resultOffset, team.jobRank(rank), offset, op, operand1, operand2, flags);
    }

    @Override
    public String toString() {
        return "TeamAtomicDomain[" + domain.type() + " on " + team + "]";
    }
}
