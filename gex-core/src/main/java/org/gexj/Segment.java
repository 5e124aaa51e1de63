package org.gexj;

import org.gexj.spi.AttachedSegments;

import java.lang.foreign.MemorySegment;

/**
 * This rank's bound segment: off-heap memory that peers address by offset. Also records every rank's
 * segment size so that remote offsets are checked at the initiator.
 */
public final class Segment {
    private final AttachedSegments attached;
    private final MemorySegment memory;
    private final long[] sizes;
    private final int rank;

    Segment(AttachedSegments attached, int rank) {
        this.attached = attached;
        this.memory = attached.local();
        this.sizes = new long[attached.ranks()];
        for (int r = 0; r < sizes.length; r++) {
            sizes[r] = attached.size(r);
        }
        this.rank = rank;
    }

    AttachedSegments attached() {
        return attached;
    }

    /** The local segment memory. */
    public MemorySegment memory() {
        return memory;
    }

    public long size() {
        return memory.byteSize();
    }

    /** Size of {@code peer}'s segment. */
    public long size(int peer) {
        checkRank(peer);
        return sizes[peer];
    }

    private void checkRank(int peer) {
        if (peer < 0 || peer >= sizes.length) {
            throw new IllegalArgumentException("rank " + peer + " out of range [0, " + sizes.length + ")");
        }
    }

    /**
     * Checks that {@code [offset, offset + length)} lies in {@code peer}'s segment.
     *
     * @throws IllegalArgumentException naming the bad value and the limit
     */
    public void checkRemote(int peer, long offset, long length) {
        checkRank(peer);
        final long limit = sizes[peer];
        if (length < 0) {
            throw new IllegalArgumentException("length " + length + " is negative");
        }
        if (offset < 0 || offset > limit || length > limit - offset) {
            throw new IllegalArgumentException("remote range [" + offset + ", " + (offset + length)
                + ") outside rank " + peer + "'s segment [0, " + limit + ")");
        }
    }

    /** Checks a local range of this rank's segment. */
    public void checkLocal(long offset, long length) {
        checkRemote(rank, offset, length);
    }
}
