package org.gexj.testkit.emu;

import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;

/**
 * A fixed set of {@link EmuItem}s of one sender for one target (and one channel, for frames): the credits of that
 * path. Any thread takes and gives back; an empty pool is back-pressure.
 */
final class EmuPool {
    private final EmuItem[] items;
    private final ManyToManyConcurrentArrayQueue<EmuItem> free;

    /** @param frameLength bytes of each item's send buffer, 0 for RMA operations */
    EmuPool(int credits, int frameLength) {
        items = new EmuItem[credits];
        free = new ManyToManyConcurrentArrayQueue<>(Math.max(2, credits));
        for (int i = 0; i < credits; i++) {
            items[i] = new EmuItem(this, i, frameLength);
            free.offer(items[i]);
        }
    }

    /** @return a free item, now {@link EmuItem#CLAIMED}, or null when every credit is in use */
    EmuItem take() {
        final EmuItem item = free.poll();
        if (item != null) {
            item.state = EmuItem.CLAIMED;
        }
        return item;
    }

    void give(EmuItem item) {
        item.state = EmuItem.FREE;
        free.offer(item);
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
        return items.length - free.size();
    }
}
