package org.gexj.smp.wire;

import org.agrona.concurrent.AtomicBuffer;

/**
 * The control region of a job on one host (file {@code /dev/shm/<jobId>-ctl}, created by rank 0): a header line and
 * one cache line per rank holding the last barrier epoch that rank has entered.
 *
 * <p>Barrier contract: a rank enters epoch e by {@link #publishEpoch publishing} e and passes it when
 * {@link #allReached every rank has published at least e}. Nobody can enter e+1 before everybody entered e, so
 * published epochs differ by at most one, a rank that is still waiting for e is not confused by a peer already at
 * e+1, and no phase can be missed. The store on publish and the acquire loads in {@link #allReached} make
 * every write a rank did before entering visible to the ranks that pass.
 * <pre>
 *   0               4               8                                               64
 *  +---------------+---------------+------------------------------------------------+
 *  | version:int32 | ranks:int32   | reserved, zero (56 bytes)                      |  header line
 *  +---------------+---------------+------------------------------------------------+
 *  | epoch of rank 0:int64         | padding to 64 bytes (no false sharing)         |  line 1
 *  +-------------------------------+------------------------------------------------+
 *  | epoch of rank 1:int64         | padding                                        |  line 2
 *  +-------------------------------+------------------------------------------------+
 *  | ...                                                                            |  line ranks
 *  +--------------------------------------------------------------------------------+
 * </pre>
 * The region starts zero-filled (a new file), so every epoch starts at 0. The version is written last by the creator,
 * after the rank count; a reader that sees the version also sees the rank count.
 */
public final class ControlRegionFlyweight {
    public static final int VERSION = 1;
    /** One cache line: each rank's epoch sits alone on its line, so publishing does not invalidate a peer's. */
    public static final int LINE = 64;

    private static final int VERSION_OFFSET = 0;
    private static final int RANKS_OFFSET = 4;

    private AtomicBuffer buffer;
    private int ranks;

    /** Bytes needed for {@code ranks} ranks. */
    public static int length(int ranks) {
        return LINE * (ranks + 1);
    }

    /**
     * Wraps a region for a job of {@code ranks} ranks.
     *
     * @throws IllegalArgumentException if the buffer is smaller than {@link #length(int)}
     */
    public ControlRegionFlyweight wrap(AtomicBuffer buffer, int ranks) {
        if (ranks < 1) {
            throw new IllegalArgumentException("ranks " + ranks + " must be >= 1");
        }
        if (buffer.capacity() < length(ranks)) {
            throw new IllegalArgumentException("control region of " + buffer.capacity() + " bytes is smaller than the "
                + length(ranks) + " needed for " + ranks + " ranks");
        }
        buffer.verifyAlignment();
        this.buffer = buffer;
        this.ranks = ranks;
        return this;
    }

    /** Written once by the creator, before any other rank maps the region. */
    public ControlRegionFlyweight initialise() {
        buffer.putInt(RANKS_OFFSET, ranks);
        buffer.putIntRelease(VERSION_OFFSET, VERSION);
        return this;
    }

    /** @return the layout version the creator wrote, 0 if it has not initialised the region yet */
    public int version() {
        return buffer.getIntVolatile(VERSION_OFFSET);
    }

    /** @return the rank count the creator wrote */
    public int ranks() {
        return buffer.getInt(RANKS_OFFSET);
    }

    /** Enters {@code epoch} for {@code rank}: the writes this thread did before are visible to whoever sees it. */
    /**
     * A full fence, not just a release: the peers spin on this line, so the store waits in the store buffer for the
     * line; with a release it would still be waiting after the barrier and the first locked instruction after it (a
     * send's claim) would pay that wait inside the caller's timed region; here it overlaps the wait for the others.
     */
    public void publishEpoch(int rank, long epoch) {
        buffer.putLongVolatile(epochOffset(rank), epoch);
    }

    public long epoch(int rank) {
        return buffer.getLongVolatile(epochOffset(rank));
    }

    /** @return true if every rank has published at least {@code epoch} */
    public boolean allReached(long epoch) {
        for (int r = 0; r < ranks; r++) {
            if (epoch(r) < epoch) {
                return false;
            }
        }
        return true;
    }

    private static int epochOffset(int rank) {
        return LINE * (rank + 1);
    }
}
