package org.gexj.testkit.emu;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.gexj.spi.Conduit;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

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
 *
 * <p>Wire latency: with a latency L > 0, {@link #offer} stamps each item with the time it arrives, L after the offer,
 * and a poll lets into the pending set only items whose time has come; until then they wait on the wire, a FIFO in
 * offer order. Nothing sleeps or spins for them: a poll reads the clock once. An item offered after a later-stamped
 * one (its sender was descheduled between stamp and offer) waits behind it: arrivals are never early, at worst late.
 * L = 0 skips the wire and the clock.
 */
final class EmuInbox {
    private final ManyToOneConcurrentArrayQueue<EmuItem> inbound;
    private final EmuItem[] pending;
    private final SplittableRandom random;
    private final int delay;
    private final long latencyNs;
    /** Items offered whose arrival time has not come, a ring in offer order; as large as {@link #pending}. */
    private final EmuItem[] wire;
    private int wireHead;
    private int wireCount;
    private int count;
    private long polls;
    /** Threads in {@link #awaitArrival}: an offer wakes them only when there are some. */
    private final AtomicInteger waiting = new AtomicInteger();
    private final Object arrival = new Object();

    /**
     * @param capacity  the most items that can be here at once, on the wire, arrived and pending (the senders' credits)
     * @param latencyNs one-way latency every offered item has before a poll may see it, 0 for none
     */
    EmuInbox(int capacity, SplittableRandom random, int delay, long latencyNs) {
        this.inbound = new ManyToOneConcurrentArrayQueue<>(capacity);
        this.pending = new EmuItem[inbound.capacity()];
        this.wire = latencyNs > 0 ? new EmuItem[inbound.capacity()] : null;
        this.random = random;
        this.delay = delay;
        this.latencyNs = latencyNs;
    }

    /** Any thread; the item arrives {@code latencyNs} from now. @return false if full, which the credits rule out */
    boolean offer(EmuItem item) {
        if (latencyNs > 0) {
            item.dueAt = System.nanoTime() + latencyNs;
        }
        final boolean offered = inbound.offer(item);
        if (waiting.get() > 0) {
            synchronized (arrival) {
                arrival.notifyAll();
            }
        }
        return offered;
    }

    /**
     * Any thread: blocks until an item is offered or {@code nanos} pass (a rank waiting with nothing to do, as
     * {@link Conduit#awaitActivity}).
     *
     * @return true if something is waiting to be polled
     */
    boolean awaitArrival(long nanos) {
        waiting.incrementAndGet();
        try {
            synchronized (arrival) {
                if (inbound.isEmpty()) {
                    arrival.wait(nanos / 1_000_000, (int) (nanos % 1_000_000));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            waiting.decrementAndGet();
        }
        return !inbound.isEmpty();
    }

    /** Counts a poll and moves what has arrived since the last one into the pending set, each with its hold. */
    void beginPoll() {
        polls++;
        EmuItem item;
        if (wire == null) {
            while ((item = inbound.poll()) != null) {
                hold(item, 0);
            }
            return;
        }
        final int mask = wire.length - 1; // a power of two, as the inbound queue's capacity
        while ((item = inbound.poll()) != null) {
            wire[(wireHead + wireCount++) & mask] = item;
        }
        final long now = System.nanoTime();
        while (wireCount > 0 && wire[wireHead].dueAt - now <= 0) {
            item = wire[wireHead];
            wire[wireHead] = null;
            wireHead = (wireHead + 1) & mask;
            wireCount--;
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

    /** Items offered, on the wire or pending; exact only when no sender is offering. */
    int size() {
        return count + wireCount + inbound.size();
    }

    /** At close: takes any item, ready or not, on the wire, arrived or pending. @return null when none is left */
    EmuItem takeAny() {
        if (count > 0) {
            final EmuItem item = pending[--count];
            pending[count] = null;
            return item;
        }
        if (wireCount > 0) {
            final EmuItem item = wire[wireHead];
            wire[wireHead] = null;
            wireHead = (wireHead + 1) & (wire.length - 1);
            wireCount--;
            return item;
        }
        return inbound.poll();
    }
}
