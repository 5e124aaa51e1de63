package org.gexj;

import org.agrona.DirectBuffer;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.wire.ControlFrameFlyweight;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The barrier of conduits without one of their own: a dissemination barrier over control frames (Hensgen, Finkel
 * and Manber). In round k of a phase, rank r sends to {@code (r + 2^k) mod n} and waits for the message of
 * {@code (r - 2^k) mod n}; after ceil(log2 n) rounds every rank has heard, transitively, from every other.
 *
 * <p>A message may arrive a phase early (a fast rank starts phase p + 1 while this one finishes p) but never two
 * phases early (no rank finishes p + 1 before every rank has started it), so arrivals are counted per round and
 * phase parity. Threads: {@link #notifyPhase} and {@link #tryComplete} from the barrier's thread; {@link #onFrame}
 * from whichever thread polls.
 */
final class DisseminationBarrier {
    private final Conduit conduit;
    private final int rank;
    private final int size;
    private final int rounds;
    private final Claim claim = new Claim();
    /** Messages received and not yet consumed, at {@code parity * rounds + round}. */
    private final AtomicIntegerArray arrived;
    private int phase;
    private int round;
    private boolean sendPending;

    DisseminationBarrier(Conduit conduit, int rank, int size) {
        this.conduit = conduit;
        this.rank = rank;
        this.size = size;
        this.rounds = 32 - Integer.numberOfLeadingZeros(size - 1); // ceil(log2 size); 0 for one rank
        this.arrived = new AtomicIntegerArray(Math.max(1, 2 * rounds));
    }

    void notifyPhase() {
        phase++;
        round = 0;
        sendPending = rounds > 0 && !send();
    }

    /** Advances as far as the arrived messages allow; sends are retried here when the path was full. */
    boolean tryComplete() {
        if (sendPending) {
            if (!send()) {
                return false;
            }
            sendPending = false;
        }
        final int parity = phase & 1;
        while (round < rounds) {
            final int index = parity * rounds + round;
            if (arrived.get(index) == 0) {
                return false;
            }
            arrived.decrementAndGet(index);
            if (++round < rounds && !send()) {
                sendPending = true;
                return false;
            }
        }
        return true;
    }

    private boolean send() {
        final int to = (rank + (1 << round)) % size;
        if (conduit.claim(claim, to, Conduit.REQUEST, ControlFrameFlyweight.LENGTH) != Conduit.OK) {
            return false;
        }
        ControlFrameFlyweight.encodeBarrier(claim.buffer(), claim.offset(), round, phase & 1, rank);
        conduit.commit(claim);
        return true;
    }

    /** @return null if the frame was a barrier message, else why it was dropped */
    String onFrame(DirectBuffer buffer, int offset, int length) {
        final String bad = ControlFrameFlyweight.validateBarrier(buffer, offset, length, rounds, size);
        if (bad != null) {
            return bad;
        }
        arrived.incrementAndGet(ControlFrameFlyweight.parity(buffer, offset) * rounds
            + ControlFrameFlyweight.round(buffer, offset));
        return null;
    }

    /**
     * Whether the client uses its conduit's barrier instead of this one: {@code GEX_BARRIER}, auto (the conduit's own
     * if it has one), am (this one, over frames), conduit.
     */
    static boolean conduitsInstead(Config config, Capabilities capabilities) {
        final String choice = config.get("GEX_BARRIER", "auto");
        return switch (choice) {
            case "auto" -> capabilities.conduitBarrier();
            case "am" -> false;
            case "conduit" -> {
                if (!capabilities.conduitBarrier()) {
                    throw new IllegalArgumentException("GEX_BARRIER=conduit, but " + capabilities.conduit()
                        + " has no barrier of its own; use auto or am");
                }
                yield true;
            }
            default -> throw new IllegalArgumentException("GEX_BARRIER=" + choice + " is not one of auto, am, conduit");
        };
    }
}
