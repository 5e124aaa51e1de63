package org.gexj.ibv;

import java.util.Arrays;

/**
 * Which rank a local queue pair serves, by QP number: a completion names the QP ({@code ibv_wc.qp_num}), which for a
 * receive through the shared receive queue is the only trace of its sender. Open addressing over two int arrays, so a
 * lookup allocates nothing. Filled at open (control path), read by the data path under the engine's lock.
 */
final class IbvQpTable {
    /** QP numbers have 24 bits: -1 is never one, and marks an empty slot. */
    private static final int EMPTY = -1;

    private final int[] keys;
    private final int[] ranks;
    private final int mask;
    private int count;

    /** A table for at most {@code capacity} QPs. */
    IbvQpTable(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity + ": at least 1 QP");
        }
        final int slots = Integer.highestOneBit(Math.max(2, capacity * 2 - 1)) << 1;
        this.keys = new int[slots];
        this.ranks = new int[slots];
        this.mask = slots - 1;
        Arrays.fill(keys, EMPTY);
    }

    /**
     * Records that QP {@code qpn} serves {@code rank}.
     *
     * @throws IllegalArgumentException for a QP number outside 24 bits, a negative rank, a QP already recorded, or a
     *                                  full table
     */
    void put(int qpn, int rank) {
        if (qpn < 0 || qpn > 0xFFFFFF) {
            throw new IllegalArgumentException("QP number " + qpn + " outside [0, 16777215] (24 bits)");
        }
        if (rank < 0) {
            throw new IllegalArgumentException("rank " + rank + " is negative");
        }
        if (count == keys.length / 2) {
            throw new IllegalArgumentException("QP table full: " + count + " QPs");
        }
        int i = slot(qpn);
        while (keys[i] != EMPTY) {
            if (keys[i] == qpn) {
                throw new IllegalArgumentException("QP number " + qpn + " already serves rank " + ranks[i]);
            }
            i = (i + 1) & mask;
        }
        keys[i] = qpn;
        ranks[i] = rank;
        count++;
    }

    /** The rank QP {@code qpn} serves, or -1 for a QP not in the table. */
    int rank(int qpn) {
        int i = slot(qpn);
        while (keys[i] != EMPTY) {
            if (keys[i] == qpn) {
                return ranks[i];
            }
            i = (i + 1) & mask;
        }
        return -1;
    }

    /** QPs recorded. */
    int size() {
        return count;
    }

    private int slot(int qpn) {
        // QP numbers are often consecutive: a multiplicative hash spreads them
        return (qpn * 0x9E3779B9 >>> 8) & mask;
    }
}
