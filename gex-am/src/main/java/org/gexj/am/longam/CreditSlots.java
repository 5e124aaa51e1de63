package org.gexj.am.longam;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The requester's AM credits toward each peer: {@code slotsPerPeer} numbered slots per peer. A request takes a free
 * slot ({@link #acquire}); the target's reply, explicit or an implicit credit return, gives it back
 * ({@link #release}). The slot index is the nonce of target-side reassembly
 * ({@link org.gexj.am.wire.LongTagCodec}): a slot is never handed out twice while in flight, so a (source, direction,
 * slot) key is never reused before its payload and envelope have been matched, and retiring a nonce costs no message.
 *
 * <p>Thread contract: any number of sender threads and the polling thread may call every method concurrently. Each
 * peer's slots are one bitmap word changed by compare-and-set: no lock, no allocation after construction. Memory is
 * 8 bytes per peer (a 1M-rank job: 8 MiB), allocated up front so that nothing is allocated on first use of a peer.
 * Words of neighbouring peers share cache lines; padding them would multiply memory by 8 for large jobs.
 */
public final class CreditSlots {
    /** {@link #acquire} found every slot toward the peer in flight: the caller applies back-pressure. */
    public static final int NO_CREDIT = -1;
    /** One bitmap word per peer. */
    public static final int MAX_SLOTS_PER_PEER = 64;

    private final AtomicLongArray inFlight;
    private final int slotsPerPeer;
    private final long allSlots;

    /**
     * @param peers        ranks of the job (slots toward oneself are allowed: loopback AM)
     * @param slotsPerPeer a power of two, 1..{@value #MAX_SLOTS_PER_PEER}; equal to the tag codec's
     *                     {@link org.gexj.am.wire.LongTagCodec#slots()} when the slots are reassembly nonces
     * @throws IllegalArgumentException naming the value and the allowed range
     */
    public CreditSlots(int peers, int slotsPerPeer) {
        if (peers < 1) {
            throw new IllegalArgumentException(peers + " peers: must be at least 1");
        }
        if (slotsPerPeer < 1 || slotsPerPeer > MAX_SLOTS_PER_PEER || Integer.bitCount(slotsPerPeer) != 1) {
            throw new IllegalArgumentException(slotsPerPeer + " slots per peer: must be a power of two, 1.."
                + MAX_SLOTS_PER_PEER);
        }
        this.inFlight = new AtomicLongArray(peers);
        this.slotsPerPeer = slotsPerPeer;
        this.allSlots = slotsPerPeer == 64 ? -1L : (1L << slotsPerPeer) - 1;
    }

    public int peers() {
        return inFlight.length();
    }

    public int slotsPerPeer() {
        return slotsPerPeer;
    }

    /**
     * Takes a free slot toward {@code peer}.
     *
     * @return the slot, 0..slotsPerPeer-1, now in flight; or {@link #NO_CREDIT} when all slots toward the peer are
     * in flight
     */
    public int acquire(int peer) {
        checkPeer(peer);
        while (true) {
            final long bits = inFlight.get(peer);
            final long free = ~bits & allSlots;
            if (free == 0) {
                return NO_CREDIT;
            }
            final int slot = Long.numberOfTrailingZeros(free);
            if (inFlight.compareAndSet(peer, bits, bits | 1L << slot)) {
                return slot;
            }
        }
    }

    /**
     * Gives back a slot toward {@code peer} once its reply (or implicit credit return) has been consumed.
     *
     * @throws IllegalStateException if the slot is not in flight: a double release, a bug that would let two
     *                               messages share a reassembly key
     */
    public void release(int peer, int slot) {
        checkPeer(peer);
        if (slot < 0 || slot >= slotsPerPeer) {
            throw new IllegalArgumentException("slot " + slot + ": must be 0.." + (slotsPerPeer - 1));
        }
        final long bit = 1L << slot;
        while (true) {
            final long bits = inFlight.get(peer);
            if ((bits & bit) == 0) {
                throw new IllegalStateException("release of slot " + slot + " toward peer " + peer
                    + ", which is not in flight (double release?)");
            }
            if (inFlight.compareAndSet(peer, bits, bits & ~bit)) {
                return;
            }
        }
    }

    /** Slots toward {@code peer} taken and not yet released (a snapshot when other threads are active). */
    public int inFlight(int peer) {
        checkPeer(peer);
        return Long.bitCount(inFlight.get(peer));
    }

    private void checkPeer(int peer) {
        if (peer < 0 || peer >= inFlight.length()) {
            throw new IllegalArgumentException("peer " + peer + ": must be 0.." + (inFlight.length() - 1));
        }
    }
}
