package org.gexj.rdma;

import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.rdma.wire.RdmaHeaderFlyweight;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The AM send path: registered send buffers (slots), the credits toward each peer's channels and those owed to them,
 * and the backlog of frames the endpoint refused for now.
 *
 * <p>{@link #claim} hands out a send slot and reserves credits toward the target's channel; {@link #commit} prefixes
 * the {@link RdmaHeaderFlyweight header} (with the credits this rank owes the target) and sends with
 * {@link RdmaNic#inject} when the message fits the NIC's inject size (the slot is free at once), else with
 * {@link RdmaNic#send} (free at its completion). A frame the endpoint refuses ({@link RdmaNic#AGAIN}: verbs;ofi_rxm
 * does while the target does not poll) waits in a backlog per target, sent again by the next poll or claim, and until
 * it has gone the target's path is full: commit never waits, and an IMMEDIATE send finds the path back-pressured at
 * claim. A receiver returns credits on its own frames, or in a credit message ({@link #returnCredits}) once it owes an
 * eighth of a window, before it sleeps, or when the liveness watch looks (every 10 ms of polling).
 *
 * <p>Threads: any thread may claim, commit and abort. Every field is guarded by the {@link RdmaGuard} lock; methods
 * documented "under the lock" expect the caller to hold it, the others take it. Only {@link #backlogged} is read
 * without it (volatile) by a poll, to skip the backlog.
 */
final class RdmaSendPath {
    private final RdmaGuard guard;
    private final RdmaNic nic;
    private final RdmaContexts contexts;
    private final RdmaLiveness liveness;
    private final int rank;
    private final int size;
    private final long timeoutNanos;
    private final String description;
    private final String timeoutSetting;

    private final int slots;
    private final int slotBytes;
    private final MemorySegment memory;
    private final UnsafeBuffer buffer;
    private final long descriptor;
    private final int[] free;
    private int freeCount;
    private final int[] slotTarget;
    private final int[] slotUnits;
    /** Bytes of the committed message in each send slot, header included. */
    private final int[] slotLength;
    // frames the endpoint refused for now (AGAIN), per target in commit order: sent again by poll and claim
    private final int[] backlogNext;
    private final int[] backlogHead;
    private final int[] backlogTail;
    /** When each target's first backlogged frame was first refused. */
    private final long[] backlogSince;
    /** Frames in the backlogs; written under the lock, read without it by a poll to skip the backlog. */
    private volatile int backlogged;
    private final RdmaHeaderFlyweight header = new RdmaHeaderFlyweight();
    private final RdmaHeaderFlyweight creditHeader = new RdmaHeaderFlyweight();
    private final MemorySegment creditMessage;
    private final UnsafeBuffer creditBuffer;

    // credits, in units, by (peer << 1) | channel
    private final int windowUnits;
    /** Whether a message costs its bytes in units (many per receive buffer), or one unit (a buffer of its own). */
    private final boolean byteCredits;
    private final int[] credits;
    private final int[] owed;
    /**
     * Owed units returned without waiting for the watch or a sleep: an eighth of a window, and no more than a sender
     * blocked by its largest message can have outstanding (window - largest + 1), so a blocked sender is always owed
     * at least this much.
     */
    private final int creditThreshold;
    /** Credit messages sent (credits returned alone, not on a frame). */
    private long creditMessages;

    RdmaSendPath(RdmaGuard guard, RdmaNic nic, RdmaContexts contexts, RdmaLiveness liveness, Arena arena, int rank,
                 int size, RdmaSettings settings, int slots, int slotBytes, int windowUnits) {
        this.guard = guard;
        this.nic = nic;
        this.contexts = contexts;
        this.liveness = liveness;
        this.rank = rank;
        this.size = size;
        this.timeoutNanos = settings.timeoutNanos();
        this.description = nic.description();
        this.timeoutSetting = settings.timeoutSetting();
        this.slots = slots;
        this.slotBytes = slotBytes;
        this.windowUnits = windowUnits;
        this.byteCredits = nic.multiReceive();
        this.memory = arena.allocate((long) slotBytes * slots, RdmaEngine.PAGE);
        this.buffer = new UnsafeBuffer(memory.address(), (int) memory.byteSize());
        this.free = new int[slots];
        for (int i = 0; i < slots; i++) {
            free[i] = slots - 1 - i;
        }
        this.freeCount = slots;
        this.slotTarget = new int[slots];
        this.slotUnits = new int[slots];
        this.slotLength = new int[slots];
        this.backlogNext = new int[slots];
        this.backlogHead = new int[size];
        this.backlogTail = new int[size];
        java.util.Arrays.fill(backlogHead, -1);
        this.backlogSince = new long[size];
        this.creditMessage = arena.allocate(64, 64);
        this.creditBuffer = new UnsafeBuffer(creditMessage.address(), (int) creditMessage.byteSize());
        this.descriptor = nic.localRegistration() ? nic.register(memory, false, true).descriptor() : 0;
        this.credits = new int[2 * size];
        java.util.Arrays.fill(credits, windowUnits);
        this.owed = new int[2 * size];
        this.creditThreshold = Math.max(1, Math.min(windowUnits / 8, windowUnits - units(slotBytes) + 1));
    }

    /**
     * Claims a slot of {@code length} frame bytes toward {@code target}'s {@code channel} (arguments checked by the
     * caller; takes the lock, open).
     *
     * @return {@link Conduit#OK}, or {@link Conduit#NO_ROOM} when no send buffer is free, the target's credits
     *         are short, or the endpoint still refuses an earlier frame to the target
     */
    int claim(Claim claim, int target, int channel, int length) {
        final int units = units(RdmaHeaderFlyweight.LENGTH + length);
        final int path = (target << 1) | channel;
        guard.lockOpen();
        try {
            sendBacklog();
            // a frame still refused by the endpoint fills the path: an IMMEDIATE send fails here, not in commit
            if (freeCount == 0 || credits[path] < units || backlogHead[target] >= 0) {
                return Conduit.NO_ROOM;
            }
            credits[path] -= units;
            final int slot = free[--freeCount];
            slotTarget[slot] = target;
            slotUnits[slot] = units;
            claim.set(buffer, slot * slotBytes + RdmaHeaderFlyweight.LENGTH, length, target, channel, slot);
            return Conduit.OK;
        } finally {
            guard.unlock();
        }
    }

    /** Sends a claimed frame, or backlogs it (takes the lock). */
    void commit(Claim claim) {
        final int slot = claimedSlot(claim);
        final int target = claim.target();
        final long length = RdmaHeaderFlyweight.LENGTH + (long) claim.length();
        guard.lock();
        try {
            if (guard.closing()) {
                // a claim made before the close began: given back, for the close waits for every send slot
                credits[(target << 1) | claim.channel()] += slotUnits[slot];
                release(slot);
                throw guard.closedException();
            }
            final int request = owed[target << 1];
            final int reply = owed[(target << 1) | 1];
            owed[target << 1] = 0;
            owed[(target << 1) | 1] = 0;
            header.wrap(buffer, slot * slotBytes).write(RdmaHeaderFlyweight.KIND_FRAME, claim.channel(), rank,
                request, reply);
            slotLength[slot] = (int) length;
            if (backlogHead[target] >= 0 || !send(slot)) {
                backlog(slot, target);
            }
        } finally {
            guard.unlock();
        }
    }

    /** Gives a claimed slot and its credits back (takes the lock; also while closing and after: nothing native). */
    void abort(Claim claim) {
        final int slot = claimedSlot(claim);
        guard.lock();
        try {
            credits[(claim.target() << 1) | claim.channel()] += slotUnits[slot];
            release(slot);
        } finally {
            guard.unlock();
        }
    }

    private int claimedSlot(Claim claim) {
        final long slot = claim.handle();
        if (claim.buffer() != buffer || slot < 0 || slot >= slots) {
            throw new IllegalArgumentException("claim " + slot + " was not made by this " + nic.conduit() + " conduit");
        }
        return (int) slot;
    }

    /** Frees a send slot (under the lock). */
    void release(int slot) {
        free[freeCount++] = slot;
    }

    /** A send's completion: frees its slot (takes the lock). */
    void completed(int slot) {
        guard.lock();
        try {
            release(slot);
        } finally {
            guard.unlock();
        }
    }

    /** A send completed in error (under the lock): frees its slot and fails the job naming the target. */
    void failed(int slot, String text) {
        release(slot);
        liveness.fail(slotTarget[slot], "a send to rank " + slotTarget[slot] + " failed over " + description + ": "
            + text);
    }

    /** Sends handed to the provider and not yet completed (a backlogged frame has not been handed over). */
    int inFlight() {
        return slots - freeCount - backlogged;
    }

    /** Whether every send slot is free (under the lock). */
    boolean idle() {
        return freeCount == slots;
    }

    /**
     * Sends the committed message of {@code slot} (under the lock): {@link RdmaNic#inject} when it fits the inject
     * size, which frees the slot at once, else {@link RdmaNic#send}, which frees it at its completion.
     *
     * @return false if the endpoint refused it for now ({@link RdmaNic#AGAIN})
     */
    private boolean send(int slot) {
        final int target = slotTarget[slot];
        final long length = slotLength[slot];
        final long address = memory.address() + (long) slot * slotBytes;
        final boolean inject = nic.injects(length);
        final long rc = inject
            ? nic.inject(address, length, target)
            : nic.send(address, length, descriptor, target, contexts.send(slot));
        if (rc == RdmaNic.AGAIN) {
            return false;
        }
        if (rc != 0) {
            release(slot);
            liveness.fail(target, (inject ? "inject" : "send") + " to rank " + target + " failed over " + description
                + ": " + nic.strerror(rc) + " (" + rc + ")");
        }
        if (inject) {
            release(slot);
        }
        return true;
    }

    /** Queues a refused frame behind the target's others (under the lock). */
    private void backlog(int slot, int target) {
        backlogNext[slot] = -1;
        if (backlogHead[target] < 0) {
            backlogHead[target] = slot;
            backlogSince[target] = System.nanoTime();
        } else {
            backlogNext[backlogTail[target]] = slot;
        }
        backlogTail[target] = slot;
        backlogged++;
    }

    /** Without the lock: whether frames may wait in the backlog. */
    boolean mayHaveBacklog() {
        return backlogged > 0;
    }

    /**
     * Sends what the endpoint refused before, in order per target, as far as it now takes (under the lock). A target
     * whose first frame stays refused for the timeout setting while this rank keeps progressing is unreachable:
     * the job fails naming it.
     */
    void sendBacklog() {
        if (backlogged == 0) {
            return;
        }
        for (int target = 0; target < size; target++) {
            int slot;
            while ((slot = backlogHead[target]) >= 0) {
                if (!send(slot)) {
                    if (System.nanoTime() - backlogSince[target] > timeoutNanos) {
                        liveness.fail(target, "rank " + target + " unreachable over " + description + ": the"
                            + " endpoint refused a message to it for " + timeoutNanos / 1_000_000_000L
                            + " s (" + timeoutSetting + ")");
                    }
                    break;
                }
                backlogHead[target] = backlogNext[slot];
                backlogSince[target] = System.nanoTime();
                backlogged--;
            }
        }
    }

    /**
     * The close's CLOSE message to {@code peer} (under the lock), sent with {@link RdmaNic#send} from a free slot once
     * the peer's backlog has gone.
     *
     * @return true if sent, false if it must be tried again (no free slot, a backlog, or {@link RdmaNic#AGAIN})
     * @throws RuntimeException (the NIC's failure) if the endpoint refused it for good
     */
    boolean trySendClose(int peer) {
        if (freeCount == 0 || backlogHead[peer] >= 0) {
            return false;
        }
        final int slot = free[--freeCount];
        slotTarget[slot] = peer;
        header.wrap(buffer, slot * slotBytes).write(RdmaHeaderFlyweight.KIND_CLOSE, 0, rank, 0, 0);
        final long rc = nic.send(memory.address() + (long) slot * slotBytes, RdmaHeaderFlyweight.LENGTH,
            descriptor, peer, contexts.send(slot));
        if (rc == 0) {
            return true;
        }
        release(slot);
        if (rc != RdmaNic.AGAIN) {
            throw nic.failure("send of CLOSE to rank " + peer, rc);
        }
        return false;
    }

    // ------------------------------------------------------------------------------------------------- credits

    /** Credits a frame from {@code source} returned (takes the lock if there are any). */
    void returned(int source, int requestCredits, int replyCredits) {
        if (requestCredits != 0 || replyCredits != 0) {
            guard.lock();
            try {
                credits[source << 1] += requestCredits;
                credits[(source << 1) | 1] += replyCredits;
            } finally {
                guard.unlock();
            }
        }
    }

    /** A message of {@code messageLength} bytes from {@code source} was delivered: its credits are owed (lock). */
    void owe(int source, int channel, int messageLength) {
        guard.lock();
        try {
            owed[(source << 1) | channel] += units(messageLength);
        } finally {
            guard.unlock();
        }
    }

    /** Whether {@code peer} holds credits of this rank's, which it returns once it has taken their frames (lock). */
    boolean owesCredits(int peer) {
        return credits[peer << 1] < windowUnits || credits[(peer << 1) | 1] < windowUnits;
    }

    /**
     * Sends owed credits alone to peers owed at least {@link #creditThreshold} units, or any when {@code all} (the
     * liveness watch looked); takes the lock, open. A poll that merely finds nothing to do returns nothing: a sender
     * waits for credits only when it has nearly a window outstanding, and then the threshold is met. Returning on
     * every idle poll cost one-way traffic a credit message per frame, so twice the sends (2 ofi ranks, testcollperf
     * broadcast_NB).
     */
    void returnCredits(boolean all) {
        guard.lockOpen();
        try {
            returnOwed(all);
        } finally {
            guard.unlock();
        }
    }

    /** As {@link #returnCredits}, under the lock: before the polling thread sleeps, so no peer waits on it. */
    void returnOwed(boolean all) {
        final int threshold = all ? 1 : creditThreshold;
        for (int peer = 0; peer < size; peer++) {
            final int request = owed[peer << 1];
            final int reply = owed[(peer << 1) | 1];
            if (request < threshold && reply < threshold) {
                continue;
            }
            creditHeader.wrap(creditBuffer, 0).write(RdmaHeaderFlyweight.KIND_CREDIT, 0, rank, request, reply);
            final long rc = nic.inject(creditMessage.address(), RdmaHeaderFlyweight.LENGTH, peer);
            if (rc == 0) {
                owed[peer << 1] -= request;
                owed[(peer << 1) | 1] -= reply;
                creditMessages++;
            } else if (rc != RdmaNic.AGAIN) {
                liveness.fail(peer, "inject of credits to rank " + peer + " failed over " + description + ": "
                    + nic.strerror(rc) + " (" + rc + ")");
            }
        }
    }

    /**
     * The credit units a message of {@code length} bytes (header included) takes: its bytes in units where messages
     * share receive buffers, else one, for the receive buffer it fills.
     */
    private int units(int length) {
        return byteCredits ? RdmaHeaderFlyweight.units(length) : 1;
    }

    /** For tests: credits toward {@code peer}'s {@code channel}, in units (takes the lock). */
    int credits(int peer, int channel) {
        guard.lock();
        try {
            return credits[(peer << 1) | channel];
        } finally {
            guard.unlock();
        }
    }

    int windowUnits() {
        return windowUnits;
    }

    /** Credit messages sent so far (under the lock). */
    long creditMessages() {
        return creditMessages;
    }
}
