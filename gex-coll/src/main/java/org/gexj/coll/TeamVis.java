package org.gexj.coll;

import org.gexj.Event;
import org.gexj.rma.Vis;

import java.lang.foreign.MemorySegment;

/**
 * {@link Vis}'s non-contiguous puts and gets addressed by rank in a team, as GASNet-EX's {@code gex_VIS_*(tm, rank,
 * ...)} take a team and a rank in it: each call takes the peer's team rank and acts on its job rank's segment with
 * {@link Vis}'s semantics, checks and completion. Made by {@link Team#vis()}.
 *
 * <p>A rank outside the team is refused with an {@link IllegalArgumentException} naming it and the team's range, before
 * anything moves. Thread-safe, as {@link Vis} is.
 */
public final class TeamVis {
    private final Team team;
    private final Vis vis;

    TeamVis(Team team, Vis vis) {
        this.team = team;
        this.vis = vis;
    }

    public Team team() {
        return team;
    }

    /** The client's VIS layer, which takes job ranks. */
    public Vis vis() {
        return vis;
    }

    /** As {@link Vis#putVector}, to team rank {@code rank}. */
    public void putVector(int rank, int dstCount, long[] dstOffsets, long[] dstLengths, MemorySegment src, int srcCount,
                          long[] srcOffsets, long[] srcLengths) {
        vis.putVector(team.jobRank(rank), dstCount, dstOffsets, dstLengths, src, srcCount, srcOffsets, srcLengths);
    }

    /** As {@link Vis#putVectorNb}, to team rank {@code rank}. */
    public Event putVectorNb(int rank, int dstCount, long[] dstOffsets, long[] dstLengths, MemorySegment src,
                             int srcCount, long[] srcOffsets, long[] srcLengths) {
        return vis.putVectorNb(team.jobRank(rank), dstCount, dstOffsets, dstLengths, src, srcCount, srcOffsets,
            srcLengths);
    }

    /** As {@link Vis#putVectorNbi}, to team rank {@code rank}. */
    public void putVectorNbi(int rank, int dstCount, long[] dstOffsets, long[] dstLengths, MemorySegment src,
                             int srcCount, long[] srcOffsets, long[] srcLengths) {
        vis.putVectorNbi(team.jobRank(rank), dstCount, dstOffsets, dstLengths, src, srcCount, srcOffsets, srcLengths);
    }

    /** As {@link Vis#getVector}, from team rank {@code rank}. */
    public void getVector(MemorySegment dst, int dstCount, long[] dstOffsets, long[] dstLengths, int rank, int srcCount,
                          long[] srcOffsets, long[] srcLengths) {
        vis.getVector(dst, dstCount, dstOffsets, dstLengths, team.jobRank(rank), srcCount, srcOffsets, srcLengths);
    }

    /** As {@link Vis#getVectorNb}, from team rank {@code rank}. */
    public Event getVectorNb(MemorySegment dst, int dstCount, long[] dstOffsets, long[] dstLengths, int rank,
                             int srcCount, long[] srcOffsets, long[] srcLengths) {
        return vis.getVectorNb(dst, dstCount, dstOffsets, dstLengths, team.jobRank(rank), srcCount, srcOffsets,
            srcLengths);
    }

    /** As {@link Vis#getVectorNbi}, from team rank {@code rank}. */
    public void getVectorNbi(MemorySegment dst, int dstCount, long[] dstOffsets, long[] dstLengths, int rank,
                             int srcCount, long[] srcOffsets, long[] srcLengths) {
        vis.getVectorNbi(dst, dstCount, dstOffsets, dstLengths, team.jobRank(rank), srcCount, srcOffsets, srcLengths);
    }

    /** As {@link Vis#putIndexed}, to team rank {@code rank}. */
    public void putIndexed(int rank, int dstCount, long[] dstOffsets, long dstLength, MemorySegment src, int srcCount,
                           long[] srcOffsets, long srcLength) {
        vis.putIndexed(team.jobRank(rank), dstCount, dstOffsets, dstLength, src, srcCount, srcOffsets, srcLength);
    }

    /** As {@link Vis#putIndexedNb}, to team rank {@code rank}. */
    public Event putIndexedNb(int rank, int dstCount, long[] dstOffsets, long dstLength, MemorySegment src,
                              int srcCount, long[] srcOffsets, long srcLength) {
        return vis.putIndexedNb(team.jobRank(rank), dstCount, dstOffsets, dstLength, src, srcCount, srcOffsets,
            srcLength);
    }

    /** As {@link Vis#putIndexedNbi}, to team rank {@code rank}. */
    public void putIndexedNbi(int rank, int dstCount, long[] dstOffsets, long dstLength, MemorySegment src,
                              int srcCount, long[] srcOffsets, long srcLength) {
        vis.putIndexedNbi(team.jobRank(rank), dstCount, dstOffsets, dstLength, src, srcCount, srcOffsets, srcLength);
    }

    /** As {@link Vis#getIndexed}, from team rank {@code rank}. */
    public void getIndexed(MemorySegment dst, int dstCount, long[] dstOffsets, long dstLength, int rank, int srcCount,
                           long[] srcOffsets, long srcLength) {
        vis.getIndexed(dst, dstCount, dstOffsets, dstLength, team.jobRank(rank), srcCount, srcOffsets, srcLength);
    }

    /** As {@link Vis#getIndexedNb}, from team rank {@code rank}. */
    public Event getIndexedNb(MemorySegment dst, int dstCount, long[] dstOffsets, long dstLength, int rank,
                              int srcCount, long[] srcOffsets, long srcLength) {
        return vis.getIndexedNb(dst, dstCount, dstOffsets, dstLength, team.jobRank(rank), srcCount, srcOffsets,
            srcLength);
    }

    /** As {@link Vis#getIndexedNbi}, from team rank {@code rank}. */
    public void getIndexedNbi(MemorySegment dst, int dstCount, long[] dstOffsets, long dstLength, int rank,
                              int srcCount, long[] srcOffsets, long srcLength) {
        vis.getIndexedNbi(dst, dstCount, dstOffsets, dstLength, team.jobRank(rank), srcCount, srcOffsets, srcLength);
    }

    /** As {@link Vis#putStrided}, to team rank {@code rank}. */
    public void putStrided(int rank, long dstOffset, long[] dstStrides, MemorySegment src, long srcOffset,
                           long[] srcStrides, long elemSize, long[] count, int strideLevels) {
        vis.putStrided(team.jobRank(rank), dstOffset, dstStrides, src, srcOffset, srcStrides, elemSize, count,
            strideLevels);
    }

    /** As {@link Vis#putStridedNb}, to team rank {@code rank}. */
    public Event putStridedNb(int rank, long dstOffset, long[] dstStrides, MemorySegment src, long srcOffset,
                              long[] srcStrides, long elemSize, long[] count, int strideLevels) {
        return vis.putStridedNb(team.jobRank(rank), dstOffset, dstStrides, src, srcOffset, srcStrides, elemSize,
            count, strideLevels);
    }

    /** As {@link Vis#putStridedNbi}, to team rank {@code rank}. */
    public void putStridedNbi(int rank, long dstOffset, long[] dstStrides, MemorySegment src, long srcOffset,
                              long[] srcStrides, long elemSize, long[] count, int strideLevels) {
        vis.putStridedNbi(team.jobRank(rank), dstOffset, dstStrides, src, srcOffset, srcStrides, elemSize, count,
            strideLevels);
    }

    /** As {@link Vis#getStrided}, from team rank {@code rank}. */
    public void getStrided(MemorySegment dst, long dstOffset, long[] dstStrides, int rank, long srcOffset,
                           long[] srcStrides, long elemSize, long[] count, int strideLevels) {
        vis.getStrided(dst, dstOffset, dstStrides, team.jobRank(rank), srcOffset, srcStrides, elemSize, count,
            strideLevels);
    }

    /** As {@link Vis#getStridedNb}, from team rank {@code rank}. */
    public Event getStridedNb(MemorySegment dst, long dstOffset, long[] dstStrides, int rank, long srcOffset,
                              long[] srcStrides, long elemSize, long[] count, int strideLevels) {
        return vis.getStridedNb(dst, dstOffset, dstStrides, team.jobRank(rank), srcOffset, srcStrides, elemSize,
            count, strideLevels);
    }

    /** As {@link Vis#getStridedNbi}, from team rank {@code rank}. */
    public void getStridedNbi(MemorySegment dst, long dstOffset, long[] dstStrides, int rank, long srcOffset,
                              long[] srcStrides, long elemSize, long[] count, int strideLevels) {
        vis.getStridedNbi(dst, dstOffset, dstStrides, team.jobRank(rank), srcOffset, srcStrides, elemSize, count,
            strideLevels);
    }
}
