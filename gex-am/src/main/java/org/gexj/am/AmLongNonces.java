package org.gexj.am;

import org.gexj.am.longam.CreditSlots;
import org.gexj.am.wire.LongTagCodec;
import org.gexj.spi.Conduit;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The nonces of target-side reassembly ({@link AmLongEngine}): a request credit slot ({@link CreditSlots},
 * {@value #SLOTS} per peer) with a {@value #GENERATION_BITS}-bit generation. A request takes a slot, and the reply
 * that answers it, the handler's own or an implicit one the dispatcher sends when the handler did not reply, carries
 * the slot back; the requester frees it once that reply has been handled and its payload's put has completed, so no
 * extra message retires a nonce and a (source, direction, nonce) key is never reused in flight. The generation counts
 * the uses of a slot. Uses of a slot are sequential, so the target knows the one generation a request may carry next
 * (the last it matched, plus one) and the requester the one its reply carries (the slot's current use, not yet
 * matched): an arrival that repeats an earlier message's (a duplicate, up to {@code 2^GENERATION_BITS - 1} uses late)
 * is refused ({@link #current}).
 *
 * <p>Threads: the sender side ({@link #tryAcquire}, {@link #start}, {@link #giveBack}, {@link #dropHold}) from any
 * thread; the target side ({@link #current}, {@link #matched}) and {@link #retire} from the polling thread.
 */
final class AmLongNonces {
    /** Credit slots per peer; the tag's nonce is a slot and its generation bits. */
    static final int SLOTS = 64;
    static final int GENERATION_BITS = 4;
    private static final int GENERATIONS = 1 << GENERATION_BITS;
    private static final byte NO_GENERATION = (byte) GENERATIONS;
    /**
     * Release/acquire access to the generation arrays, which sender threads write and the polling thread reads. The
     * conduit orders only its own initiating call before the poll that reports the reply (see {@link Conduit}); a
     * sender's plain write made before that call would be visible to the poller only by grace of the conduit's
     * internals (ofi's lock), and the JIT could keep a plain read in a register. Element access allocates nothing.
     */
    private static final VarHandle GENERATION = MethodHandles.arrayElementVarHandle(byte[].class);

    private final CreditSlots credits;
    /**
     * Sender side, per (peer, slot): the generation of the slot's current use, advanced by whichever sender acquires
     * the slot, read by the poller to match replies. Accessed through {@link #GENERATION} only.
     */
    private final byte[] sendGeneration;
    /** Sender side, per (peer, slot): what still holds the slot (the reply, the payload's put); 0 frees it. */
    private final AtomicIntegerArray holds;
    /**
     * Per (source, direction, slot): the generation last matched here (requests start from 0, the generation before
     * a slot's first use), or {@link #NO_GENERATION} for a reply not matched yet. The poller writes and reads every
     * entry; a sender also resets a reply entry when it takes the slot. Accessed through {@link #GENERATION} only
     * (after construction).
     */
    private final byte[] matchedGeneration;

    AmLongNonces(int size) {
        this.credits = new CreditSlots(size, SLOTS);
        this.sendGeneration = new byte[size * SLOTS];
        this.holds = new AtomicIntegerArray(size * SLOTS);
        this.matchedGeneration = new byte[2 * size * SLOTS];
        for (int source = 0; source < size; source++) {
            Arrays.fill(matchedGeneration, index(source, LongTagCodec.DIRECTION_REPLY, 0),
                index(source, LongTagCodec.DIRECTION_REPLY, 0) + SLOTS, NO_GENERATION);
        }
    }

    /** The bits of a nonce in a tag: a slot and its generation. */
    static int nonceBits() {
        return Integer.numberOfTrailingZeros(SLOTS) + GENERATION_BITS;
    }

    /** The (peer, slot) index of a held slot, as {@link #giveBack} and {@link #dropHold} take it. */
    static int held(int peer, int slot) {
        return peer * SLOTS + slot;
    }

    /** True if an envelope's {@code nonce} is in range and names the credit slot its header carries. */
    static boolean wellFormed(int nonce, int credit) {
        return nonce >= 0 && nonce < SLOTS << GENERATION_BITS && nonce >> GENERATION_BITS == credit;
    }

    /** A free slot toward {@code peer}, or {@link CreditSlots#NO_CREDIT}; {@link #start} begins its use. */
    int tryAcquire(int peer) {
        return credits.acquire(peer);
    }

    int inFlight(int peer) {
        return credits.inFlight(peer);
    }

    /**
     * Begins the next use of a slot just acquired toward {@code peer}: held by its reply and its payload's put.
     *
     * @return the nonce the request carries
     */
    int start(int peer, int slot) {
        final int held = held(peer, slot);
        // the slot's previous user published its generation before it released the credit this sender took
        final byte generation = (byte) (((byte) GENERATION.getAcquire(sendGeneration, held) + 1)
            & (GENERATIONS - 1));
        // this use's reply is not matched yet (the mark of a use 16 generations ago would refuse it); both writes
        // are released before the envelope and payload calls that the poller's reply match comes after
        GENERATION.setRelease(matchedGeneration, index(peer, LongTagCodec.DIRECTION_REPLY, slot), NO_GENERATION);
        GENERATION.setRelease(sendGeneration, held, generation);
        holds.set(held, 2);
        return (slot << GENERATION_BITS) | generation;
    }

    /**
     * A slot taken for a message that was not sent after all: free again at once, its generation back to the last one
     * sent. The target expects exactly the next generation of a slot, so a use that burned one would make the slot's
     * next real message look stale there and be dropped.
     */
    void giveBack(int credited) {
        GENERATION.setRelease(sendGeneration, credited,
            (byte) (((byte) GENERATION.getAcquire(sendGeneration, credited) - 1) & (GENERATIONS - 1)));
        holds.set(credited, 0);
        credits.release(credited / SLOTS, credited % SLOTS);
    }

    /** Drops one of what holds a (peer, slot); the last frees it. @return false if nothing held it */
    boolean dropHold(int credited) {
        final int left = holds.decrementAndGet(credited);
        if (left < 0) {
            holds.incrementAndGet(credited);
            return false;
        }
        if (left == 0) {
            credits.release(credited / SLOTS, credited % SLOTS);
        }
        return true;
    }

    /**
     * Whether an arrival is of the slot's current message: a request's generation must follow the last one matched;
     * a reply's must be this rank's current use of the slot, not matched yet.
     */
    boolean current(int source, int direction, int nonce) {
        final int generation = nonce & (GENERATIONS - 1);
        final int slot = nonce >> GENERATION_BITS;
        final byte last = (byte) GENERATION.getAcquire(matchedGeneration, index(source, direction, slot));
        return direction == LongTagCodec.DIRECTION_REQUEST
            ? generation == ((last + 1) & (GENERATIONS - 1))
            : holds.get(source * SLOTS + slot) > 0
                && generation == (byte) GENERATION.getAcquire(sendGeneration, source * SLOTS + slot)
                && generation != last;
    }

    /** Both halves of the message with {@code nonce} arrived: the generation it carried is the last matched. */
    void matched(int source, int direction, int nonce) {
        GENERATION.setRelease(matchedGeneration, index(source, direction, nonce >> GENERATION_BITS),
            (byte) (nonce & (GENERATIONS - 1)));
    }

    /**
     * A reply that carried one of this rank's credit slots toward {@code peer} was handled: the reply no longer holds
     * the slot (the payload's put may still).
     *
     * @return false if this rank held no such slot (the reply is bad)
     */
    boolean retire(int peer, int slot) {
        return slot < SLOTS && dropHold(held(peer, slot));
    }

    private static int index(int source, int direction, int slot) {
        return (source * 2 + direction) * SLOTS + slot;
    }
}
