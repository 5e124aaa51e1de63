package org.gexj.testkit.emu;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A fixed set of {@link EmuItem}s of one sender for one target (and one channel, for frames): the credits of that
 * path. Any thread takes and gives back; an empty pool is back-pressure.
 *
 * <p>The free items form a lock-free stack linked by index (Treiber), its top word holding a stamp beside the index so
 * that an item taken and given back between another thread's read and its CAS fails that CAS (no ABA). Not a bounded
 * array queue: there, a consumer descheduled between its two steps makes producers that wrap around to its slot see
 * the queue full, and a give that cannot fail would lose the item.
 */
final class EmuPool {
    private static final int EMPTY = -1;

    private final EmuItem[] items;
    /** {@code stamp << 32 | index} of the top free item, index {@link #EMPTY} when none is free. */
    private final AtomicLong top;

    /** @param frameLength bytes of each item's send buffer, 0 for RMA operations */
    EmuPool(int credits, int frameLength) {
        items = new EmuItem[credits];
        for (int i = 0; i < credits; i++) {
            items[i] = new EmuItem(this, i, frameLength);
            items[i].next = i - 1;
        }
        top = new AtomicLong(pack(0, credits - 1));
    }

    private static long pack(long stamp, int index) {
        return (stamp << 32) | (index & 0xFFFF_FFFFL);
    }

    /** @return a free item, now {@link EmuItem#CLAIMED}, or null when every credit is in use */
    EmuItem take() {
        while (true) {
            final long t = top.get();
            final int index = (int) t;
            if (index == EMPTY) {
                return null;
            }
            final EmuItem item = items[index];
            // read after the top that published it; if the item moved since, the stamp moved too and the CAS fails
            final int next = item.next;
            if (top.compareAndSet(t, pack((t >>> 32) + 1, next))) {
                item.state = EmuItem.CLAIMED;
                return item;
            }
        }
    }

    void give(EmuItem item) {
        item.state = EmuItem.FREE;
        while (true) {
            final long t = top.get();
            item.next = (int) t;
            if (top.compareAndSet(t, pack((t >>> 32) + 1, item.index))) {
                return;
            }
        }
    }

    /**
     * @return the item of a claim's handle, which must be {@link EmuItem#CLAIMED}
     * @throws IllegalStateException if the claim was committed or aborted already, or never made here
     */
    EmuItem claimed(long handle) {
        final EmuItem item = handle >= 0 && handle < items.length ? items[(int) handle] : null;
        if (item == null || item.state != EmuItem.CLAIMED) {
            throw new IllegalStateException("claim with handle " + handle + " is not outstanding: committed or aborted"
                + " already, or not made by this conduit for this target and channel");
        }
        return item;
    }

    /** Items not in the pool now (claimed or in flight); exact only when nothing moves. */
    int inUse() {
        int free = 0;
        for (int i = (int) top.get(); i != EMPTY && free < items.length; i = items[i].next) {
            free++;
        }
        return items.length - free;
    }
}
