package org.gexj.am;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.am.wire.AmFrameFlyweight;
import org.gexj.internal.CoreAccess;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.RegisteredAccess;
import org.gexj.spi.RegisteredRmaTransport;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The target's side of rendezvous AM Longs on conduits whose NIC reads peers' registrations by key (ofi, ibv): the
 * envelope is kept, an RDMA read ({@link RegisteredRmaTransport#getRegistered}) brings the payload into this rank's
 * segment, and once it completes the client's progress (outside any handler) hands the envelope back to the
 * dispatcher, which answers the sender and runs the handler, as a pull by Cross Memory Attach does at once. A read the
 * NIC refused (a closed registration, a range outside it) is answered {@link RegisteredAccess#FAULT}: the sender's
 * completion fails and no handler runs.
 *
 * <p>Slots (an envelope's copy and its read's state) are reused and grow with the reads in flight, so a steady flow
 * allocates nothing. A read the NIC has no room for is retried at the next progress. Threads: the polling thread
 * alone ({@link #start} from a frame's delivery, {@link #onRmaCompletion} from a poll, {@link #progress} from the
 * client's progress).
 */
final class AmRendezvousPulls implements ConduitListener {
    private static final long OWNER = (long) CoreAccess.OWNER_AM_PULL << CoreAccess.OWNER_SHIFT;
    /** The longest rendezvous envelope: header, the most args, the dest and the trailer. */
    private static final int ENVELOPE = AmFrameFlyweight.frameLength(AmFrameFlyweight.CATEGORY_LONG,
        AmFrameFlyweight.MAX_ARGS, AmFrameFlyweight.RENDEZVOUS_TRAILER);
    /** What {@link #start} returns once the read is started or queued. */
    static final int PULLING = -2;

    private static final int FREE = 0;
    private static final int TO_START = 1;
    private static final int READING = 2;
    private static final int READ = 3;
    /** Its handler runs: the envelope stays until it returns (a nested poll may start other reads). */
    private static final int DELIVERING = 4;

    /** Where envelopes that came finished go: the dispatcher, which answers and runs the handler. */
    interface Delivery {
        void deliverPulled(DirectBuffer envelope, int length, int code);
    }

    private final RegisteredRmaTransport nic;
    private final Delivery delivery;
    private final AmFrameFlyweight frame = new AmFrameFlyweight();
    private UnsafeBuffer[] envelopes = new UnsafeBuffer[0];
    private int[] lengths = new int[0];
    private int[] state = new int[0];
    private int[] status = new int[0];
    private long[] dest = new long[0];
    /** Slots not FREE: the progress looks at these only. */
    private int busy;

    AmRendezvousPulls(RegisteredRmaTransport nic, Delivery delivery) {
        this.nic = nic;
        this.delivery = delivery;
    }

    /**
     * Keeps the envelope and starts the read of its payload into {@code local} at its dest.
     *
     * @return {@link #PULLING}, or a {@link RegisteredAccess} refusal to answer at once (nothing read)
     */
    int start(AmFrameFlyweight envelope, MemorySegment local) {
        final long nbytes = envelope.payloadLength();
        final long at = envelope.dest();
        if (local == null || at < 0 || at > local.byteSize() - nbytes) {
            return RegisteredAccess.OUT_OF_RANGE;
        }
        final int slot = freeSlot();
        envelopes[slot].putBytes(0, envelope.buffer(), envelope.offset(), envelope.length());
        lengths[slot] = envelope.length();
        dest[slot] = at;
        state[slot] = TO_START;
        busy++;
        tryStart(slot, local);
        return PULLING;
    }

    private void tryStart(int slot, MemorySegment local) {
        final AmFrameFlyweight f = frame.wrap(envelopes[slot], 0, lengths[slot]);
        final int code = nic.getRegistered(local, dest[slot], f.source(), f.rendezvousAddress(), f.rendezvousKey(),
            f.rendezvousOffset(), f.payloadLength(), OWNER | slot);
        if (code == Conduit.OK) {
            state[slot] = READING;
        } else if (code != Conduit.NO_ROOM) {
            finish(slot, code);
        }
    }

    @Override
    public void onFrame(int channel, DirectBuffer buffer, int offset, int length) {
        throw new IllegalStateException("rendezvous pull completions only");
    }

    @Override
    public void onRmaCompletion(long operation, int code) {
        final int slot = (int) (operation & ~OWNER);
        if (slot < 0 || slot >= state.length || state[slot] != READING) {
            throw new IllegalStateException("completion of rendezvous pull " + slot + ", which is not reading");
        }
        finish(slot, code);
    }

    private void finish(int slot, int code) {
        state[slot] = READ;
        status[slot] = code == Conduit.OK ? RegisteredAccess.OK : RegisteredAccess.FAULT;
    }

    /**
     * Hands the finished envelopes to the dispatcher and retries the reads that had no room. Outside handlers.
     *
     * @return how many were delivered
     */
    int progress(MemorySegment local) {
        if (busy == 0) {
            return 0;
        }
        int delivered = 0;
        for (int slot = 0; slot < state.length; slot++) {
            if (state[slot] == READ) {
                state[slot] = DELIVERING;
                try {
                    delivery.deliverPulled(envelopes[slot], lengths[slot], status[slot]);
                } finally {
                    state[slot] = FREE;
                    busy--;
                }
                delivered++;
            } else if (state[slot] == TO_START) {
                tryStart(slot, local);
            }
        }
        return delivered;
    }

    private int freeSlot() {
        for (int slot = 0; slot < state.length; slot++) {
            if (state[slot] == FREE) {
                return slot;
            }
        }
        final int n = state.length;
        final int grown = Math.max(8, 2 * n);
        envelopes = Arrays.copyOf(envelopes, grown);
        for (int i = n; i < grown; i++) {
            envelopes[i] = new UnsafeBuffer(new byte[ENVELOPE]);
        }
        lengths = Arrays.copyOf(lengths, grown);
        state = Arrays.copyOf(state, grown);
        status = Arrays.copyOf(status, grown);
        dest = Arrays.copyOf(dest, grown);
        return n;
    }
}
