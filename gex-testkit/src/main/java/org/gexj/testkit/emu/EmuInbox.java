package org.gexj.testkit.emu;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.gexj.spi.Conduit;

import java.util.SplittableRandom;

/**
 * What has arrived at one emu rank and what it delivers next: senders {@link #offer} from any thread; the rank's poll
 * moves the arrivals into a pending set ({@link #beginPoll}), holding each back for a random number of polls, and
 * takes them out one at a time in a random order ({@link #next}).
 *
 * <p>Never starving: an item that has been deliverable for more than {@code delay} polls is overdue, and overdue items
 * go first, oldest first, so every item of a polled channel is delivered within a bounded number of polls.
 *
 * <p>Reproducible: every choice comes from one {@link SplittableRandom}, so the same seed, arrivals and polls give the
 * same order. Reentrant: a listener may poll again from inside a delivery (a handler waiting to send drains replies),
 * because an item leaves the pending set before it is delivered. One polling thread at a time.
 */
final class EmuInbox {
    private final ManyToOneConcurrentArrayQueue<EmuItem> inbound;
    private final EmuItem[] pending;
    private final SplittableRandom random;
    private final int delay;
    private int count;
    private long polls;

    /** @param capacity the most items that can be here at once, arrived and pending (the senders' credits) */
    EmuInbox(int capacity, SplittableRandom random, int delay) {
        this.inbound = new ManyToOneConcurrentArrayQueue<>(capacity);
        this.pending = new EmuItem[inbound.capacity()];
        this.random = random;
        this.delay = delay;
    }

    /** Any thread. @return false if full, which the credits rule out */
    boolean offer(EmuItem item) {
        return inbound.offer(item);
    }

    /** Counts a poll and moves what arrived since the last one into the pending set, each with its hold. */
    void beginPoll() {
        polls++;
        EmuItem item;
        while ((item = inbound.poll()) != null) {
            hold(item, 0);
        }
    }

    /**
     * Adds {@code item} to the pending set, deliverable after at least {@code minPolls} more polls and a random hold.
     */
    void hold(EmuItem item, int minPolls) {
        item.readyAt = polls + minPolls + (delay == 0 ? 0 : random.nextInt(delay + 1));
        pending[count++] = item;
    }

    /**
     * Takes the next item to deliver, as the SPI's poll contract says: for the request channel, request frames and
     * remote writes landing here (they may start request handlers); for the reply channel, reply frames and this rank's
     * RMA completions (what a handler waiting for room may need); puts and gets land on either, as a NIC writes memory
     * whatever the target's software does.
     *
     * @return the item, removed from the pending set, or null if none may be delivered now
     */
    EmuItem next(int channelMask) {
        int eligible = 0;
        int overdue = -1;
        long oldest = Long.MAX_VALUE;
        for (int i = 0; i < count; i++) {
            final EmuItem item = pending[i];
            if (deliverable(item, channelMask)) {
                eligible++;
                if (item.readyAt + delay < polls && item.readyAt < oldest) {
                    oldest = item.readyAt;
                    overdue = i;
                }
            }
        }
        if (eligible == 0) {
            return null;
        }
        int chosen = overdue;
        if (chosen < 0) {
            int k = random.nextInt(eligible);
            for (int i = 0; i < count; i++) {
                if (deliverable(pending[i], channelMask) && k-- == 0) {
                    chosen = i;
                    break;
                }
            }
        }
        final EmuItem item = pending[chosen];
        pending[chosen] = pending[--count];
        pending[count] = null;
        return item;
    }

    private boolean deliverable(EmuItem item, int channelMask) {
        if (item.readyAt > polls) {
            return false;
        }
        return switch (item.kind) {
            case EmuItem.FRAME -> (channelMask & (1 << item.channel)) != 0;
            case EmuItem.COMPLETION -> (channelMask & (1 << Conduit.REPLY)) != 0;
            case EmuItem.REMOTE_WRITE, EmuItem.DUPLICATE_TAG -> (channelMask & (1 << Conduit.REQUEST)) != 0;
            default -> true;
        };
    }

    /** Items arrived or pending; exact only when no sender is offering. */
    int size() {
        return count + inbound.size();
    }

    /** At close: takes any item, ready or not, arrived or pending. @return null when none is left */
    EmuItem takeAny() {
        if (count > 0) {
            final EmuItem item = pending[--count];
            pending[count] = null;
            return item;
        }
        return inbound.poll();
    }
}
