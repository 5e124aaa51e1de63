package org.gexj.smp.wire;

import org.agrona.concurrent.AtomicBuffer;

/**
 * The shared-memory barrier of one host: one cache line per rank holding the last barrier epoch that rank has
 * entered. A rank passes epoch e when every rank has published an epoch of at least e; since nobody can enter e+1
 * before everybody entered e, epochs never differ by more than one and no phase can be missed.
 * <pre>
 *   0                                                             64
 *  +---------------------------------------------------------------+
 *  | version:int32 | reserved:int32 | reserved (56 bytes)          |  header line
 *  +---------------------------------------------------------------+
 *  | rank 0 epoch:int64 | padding to 64 bytes (no false sharing)   |
 *  +---------------------------------------------------------------+
 *  | rank 1 epoch:int64 | padding                                  |
 *  +---------------------------------------------------------------+
 *  | ...                                                           |
 * </pre>
 */
public final class BarrierFlyweight {
    public static final int VERSION = 1;
    public static final int LINE = 64;

    private AtomicBuffer buffer;
    private int ranks;

    /** Bytes needed for {@code ranks} ranks. */
    public static int length(int ranks) {
        return LINE * (ranks + 1);
    }

    public BarrierFlyweight wrap(AtomicBuffer buffer, int ranks) {
        if (buffer.capacity() < length(ranks)) {
            throw new IllegalArgumentException("barrier region of " + buffer.capacity() + " bytes is smaller than the "
                + length(ranks) + " needed for " + ranks + " ranks");
        }
        this.buffer = buffer;
        this.ranks = ranks;
        return this;
    }

    /** Written once by the creator, before anybody else maps the region. */
    public void initialise() {
        buffer.putIntVolatile(0, VERSION);
    }

    public int version() {
        return buffer.getIntVolatile(0);
    }

    public void publishEpoch(int rank, long epoch) {
        buffer.putLongVolatile(LINE * (rank + 1), epoch);
    }

    public long epoch(int rank) {
        return buffer.getLongVolatile(LINE * (rank + 1));
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
}
