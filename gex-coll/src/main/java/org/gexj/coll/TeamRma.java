package org.gexj.coll;

import org.gexj.Event;
import org.gexj.Lc;
import org.gexj.rma.Rma;

import java.lang.foreign.MemorySegment;

/**
 * {@link Rma}'s puts and gets addressed by rank in a team, as GASNet-EX's {@code gex_RMA_*(tm, rank, ...)} take a team
 * and a rank in it: each call here takes the peer's team rank and acts on its job rank's segment, with {@link Rma}'s
 * semantics, checks and completion. Made by {@link Team#rma()}.
 *
 * <p>A rank outside the team is refused with an {@link IllegalArgumentException} naming it and the team's range,
 * before anything moves. Thread-safe, as {@link Rma} is.
 */
public final class TeamRma {
    private final Team team;
    private final Rma rma;

    TeamRma(Team team, Rma rma) {
        this.team = team;
        this.rma = rma;
    }

    public Team team() {
        return team;
    }

    /** The client's RMA layer, which takes job ranks. */
    public Rma rma() {
        return rma;
    }

    /** As {@link Rma#put}, to team rank {@code rank}. */
    public void put(int rank, long remoteOffset, MemorySegment src, long srcOffset, long nbytes) {
        rma.put(team.jobRank(rank), remoteOffset, src, srcOffset, nbytes);
    }

    /** As {@link Rma#putNb}, to team rank {@code rank}. */
    public Event putNb(int rank, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, Lc lc) {
        return rma.putNb(team.jobRank(rank), remoteOffset, src, srcOffset, nbytes, lc);
    }

    /** As {@link Rma#putNbi}, to team rank {@code rank}. */
    public void putNbi(int rank, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, Lc lc) {
        rma.putNbi(team.jobRank(rank), remoteOffset, src, srcOffset, nbytes, lc);
    }

    /** As {@link Rma#get}, from team rank {@code rank}. */
    public void get(MemorySegment dst, long dstOffset, int rank, long remoteOffset, long nbytes) {
        rma.get(dst, dstOffset, team.jobRank(rank), remoteOffset, nbytes);
    }

    /** As {@link Rma#getNb}, from team rank {@code rank}. */
    public Event getNb(MemorySegment dst, long dstOffset, int rank, long remoteOffset, long nbytes) {
        return rma.getNb(dst, dstOffset, team.jobRank(rank), remoteOffset, nbytes);
    }

    /** As {@link Rma#getNbi}, from team rank {@code rank}. */
    public void getNbi(MemorySegment dst, long dstOffset, int rank, long remoteOffset, long nbytes) {
        rma.getNbi(dst, dstOffset, team.jobRank(rank), remoteOffset, nbytes);
    }

    /** As {@link Rma#putVal}, to team rank {@code rank}. */
    public void putVal(int rank, long remoteOffset, long value, int nbytes) {
        rma.putVal(team.jobRank(rank), remoteOffset, value, nbytes);
    }

    /** As {@link Rma#putValNb}, to team rank {@code rank}. */
    public Event putValNb(int rank, long remoteOffset, long value, int nbytes) {
        return rma.putValNb(team.jobRank(rank), remoteOffset, value, nbytes);
    }

    /** As {@link Rma#putValNbi}, to team rank {@code rank}. */
    public void putValNbi(int rank, long remoteOffset, long value, int nbytes) {
        rma.putValNbi(team.jobRank(rank), remoteOffset, value, nbytes);
    }

    /** As {@link Rma#getVal}, from team rank {@code rank}. */
    public long getVal(int rank, long remoteOffset, int nbytes) {
        return rma.getVal(team.jobRank(rank), remoteOffset, nbytes);
    }
}
