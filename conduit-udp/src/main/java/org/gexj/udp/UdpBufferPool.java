package org.gexj.udp;

import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * Power-of-two buffers, kept once made: after warm-up no frame or datagram allocates. Free buffers above the
 * {@value #RETAIN_ALL_CLASS} size class (128 KiB) are kept up to a byte budget (the conduit gives the buffers that one
 * stream's window of frames may fill), so that a flood of large Longs reuses its buffers while one huge Long does not
 * pin its memory for ever. Freeing is dear: closing a shared arena waits for a handshake with every Java thread
 * (about a millisecond here), which once per message made 128 KiB Longs at depth 32 cost 1 ms each. Not
 * thread-safe: the conduit's lock covers it.
 */
final class UdpBufferPool {
    private static final int MIN_CLASS = 11;
    private static final int RETAIN_ALL_CLASS = 17;
    /** Buffers above 1 GiB: sized to what was asked for, not a power of two. */
    private static final int TOP_CLASS = 31;
    private static final long MIB = 1 << 20;

    private final long retainLargeBytes;
    private long largeFreeBytes;

    private final ArrayList<UdpBuffer> byId = new ArrayList<>();
    private final ArrayDeque<Integer> freeIds = new ArrayDeque<>();
    @SuppressWarnings("unchecked")
    private final ArrayDeque<UdpBuffer>[] free = new ArrayDeque[32];
    private long bytesHeld;

    /** @param retainLargeBytes how many bytes of free buffers above 128 KiB to keep for reuse */
    UdpBufferPool(long retainLargeBytes) {
        this.retainLargeBytes = retainLargeBytes;
    }

    UdpBuffer take(long bytes) {
        final int sizeClass = Math.max(MIN_CLASS, 64 - Long.numberOfLeadingZeros(Math.max(1, bytes - 1)));
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a buffer of " + bytes + " bytes is more than " + Integer.MAX_VALUE);
        }
        final ArrayDeque<UdpBuffer> list = free[sizeClass];
        final UdpBuffer kept = list == null ? null : list.pollLast();
        if (kept != null) {
            if (sizeClass > RETAIN_ALL_CLASS) {
                largeFreeBytes -= kept.capacity();
            }
            if (kept.capacity() >= bytes) {
                return kept;
            }
            release(kept); // the top class holds buffers of the sizes asked for: this one is too small
        }
        final Integer reuse = freeIds.pollLast();
        final int id = reuse != null ? reuse : byId.size();
        final UdpBuffer b = new UdpBuffer(id, sizeClass, capacityFor(sizeClass, bytes));
        if (reuse != null) {
            byId.set(id, b);
        } else {
            byId.add(b);
        }
        bytesHeld += b.capacity();
        return b;
    }

    /**
     * A power of two up to 1 GiB; above, the bytes asked for in whole MiB: a buffer is one ByteBuffer view (the NIO
     * port and the checksum read through it), which holds less than 2 GiB, and a frame of GEX_UDP_MAX_FRAME (1 GiB)
     * plus its header would round up to 2 GiB.
     */
    private static long capacityFor(int sizeClass, long bytes) {
        if (sizeClass < TOP_CLASS) {
            return 1L << sizeClass;
        }
        return Math.min((bytes + MIB - 1) & -MIB, Integer.MAX_VALUE);
    }

    void give(UdpBuffer b) {
        if (free[b.sizeClass] == null) {
            free[b.sizeClass] = new ArrayDeque<>();
        }
        final ArrayDeque<UdpBuffer> list = free[b.sizeClass];
        if (b.sizeClass > RETAIN_ALL_CLASS) {
            // the sizes in use now come first: a flood of 2 MiB Longs after one of 512 KiB reuses its own buffers
            while (largeFreeBytes + b.capacity() > retainLargeBytes) {
                if (!releaseOtherThan(b.sizeClass)) {
                    release(b);
                    return;
                }
            }
            largeFreeBytes += b.capacity();
        }
        list.addLast(b);
    }

    /** Frees the oldest free buffer of the largest class other than {@code sizeClass}; false if there is none. */
    private boolean releaseOtherThan(int sizeClass) {
        for (int c = free.length - 1; c > RETAIN_ALL_CLASS; c--) {
            if (c != sizeClass && free[c] != null && !free[c].isEmpty()) {
                final UdpBuffer old = free[c].pollFirst();
                largeFreeBytes -= old.capacity();
                release(old);
                return true;
            }
        }
        return false;
    }

    private void release(UdpBuffer b) {
        byId.set(b.id, null);
        freeIds.addLast(b.id);
        bytesHeld -= b.capacity();
        b.arena.close();
    }

    UdpBuffer byId(long id) {
        if (id < 0 || id >= byId.size() || byId.get((int) id) == null) {
            throw new IllegalArgumentException("claim handle " + id + " is not a udp send buffer");
        }
        return byId.get((int) id);
    }

    long bytesHeld() {
        return bytesHeld;
    }

    void close() {
        for (UdpBuffer b : byId) {
            if (b != null) {
                b.arena.close();
            }
        }
        byId.clear();
        java.util.Arrays.fill(free, null);
        bytesHeld = 0;
        largeFreeBytes = 0;
    }
}
