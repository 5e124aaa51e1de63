package org.gexj.udp;

import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * Power-of-two buffers, kept once made: after warm-up no frame or datagram allocates. Buffers above
 * {@value #RETAIN_ALL_CLASS} size class (128 KiB) are kept {@value #RETAIN_LARGE} per class and freed beyond, so that
 * one huge Long does not pin its memory for ever. Not thread-safe: the conduit's lock covers it.
 */
final class UdpBufferPool {
    private static final int MIN_CLASS = 11;
    private static final int RETAIN_ALL_CLASS = 17;
    private static final int RETAIN_LARGE = 2;

    private final ArrayList<UdpBuffer> byId = new ArrayList<>();
    private final ArrayDeque<Integer> freeIds = new ArrayDeque<>();
    @SuppressWarnings("unchecked")
    private final ArrayDeque<UdpBuffer>[] free = new ArrayDeque[32];
    private long bytesHeld;

    UdpBuffer take(long bytes) {
        final int sizeClass = Math.max(MIN_CLASS, 64 - Long.numberOfLeadingZeros(Math.max(1, bytes - 1)));
        if (sizeClass > 31) {
            throw new IllegalArgumentException("a buffer of " + bytes + " bytes is more than 2^31");
        }
        final ArrayDeque<UdpBuffer> list = free[sizeClass];
        final UdpBuffer kept = list == null ? null : list.pollLast();
        if (kept != null) {
            return kept;
        }
        final Integer reuse = freeIds.pollLast();
        final int id = reuse != null ? reuse : byId.size();
        final UdpBuffer b = new UdpBuffer(id, sizeClass);
        if (reuse != null) {
            byId.set(id, b);
        } else {
            byId.add(b);
        }
        bytesHeld += b.capacity();
        return b;
    }

    void give(UdpBuffer b) {
        if (free[b.sizeClass] == null) {
            free[b.sizeClass] = new ArrayDeque<>();
        }
        final ArrayDeque<UdpBuffer> list = free[b.sizeClass];
        if (b.sizeClass > RETAIN_ALL_CLASS && list.size() >= RETAIN_LARGE) {
            byId.set(b.id, null);
            freeIds.addLast(b.id);
            bytesHeld -= b.capacity();
            b.arena.close();
            return;
        }
        list.addLast(b);
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
    }
}
