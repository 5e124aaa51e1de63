package org.gexj.am;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.Client;
import org.gexj.Flags;
import org.gexj.GexTimeoutException;
import org.gexj.internal.CoreAccess;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;

import java.nio.ByteBuffer;

/**
 * Claims room for a frame on the conduit and commits it: at once if there is room, else (unless
 * {@link Flags#IMMEDIATE}) by running progress, and so handlers, until there is, and failing with
 * {@link GexTimeoutException} once the path has stayed full for {@code GEX_BACKPRESSURE_TIMEOUT}. A conduit's
 * {@link IllegalStateException} from a client another thread closed is reported as the closed client.
 *
 * <p>Thread contract: any thread may claim and commit at the same time; each uses its own {@link Claim}
 * ({@link #sendClaim()}), which a handler's reply on the same thread reuses before that thread's send has one. The
 * only shared mutable state is the {@link #lastClaim} cache, published by one reference write.
 */
final class AmClaims {
    private static final CoreAccess CORE = CoreAccess.get();
    /**
     * Request frames from this size poll before they claim room, unless {@link Flags#IMMEDIATE} (GASNet-EX's requests
     * poll on entry), where a poll costs a few loads: on a conduit whose peers' memory is mapped here. In a two-way
     * flood each rank then drains its peer's frames between its own instead of only once its path is full, and both
     * copy at once: smp testam's two-way flood of 64 KiB Mediums took 3.6 us per message without (GASNet-EX: 2.4), 1.9
     * with. Over ofi, where a poll is a system call, polling before every request made its two-way floods no faster.
     */
    static final int POLL_BEFORE_REQUEST_BYTES = 16384;
    /**
     * Smaller request frames poll the request channel before every this many of them. Without it, in a two-way flood
     * of small frames a rank whose path was not full never drained its peer's frames, while the peer, held up, drained
     * this rank's right behind it, a line at a time, until this rank had sent all of its frames: smp testam's two-way
     * flood of 8-byte Mediums took 0.15 us per message in about half the runs of 10000 and 0.04 in the others
     * (GASNet-EX: 0.10). Polling the replies as well, in batches of 64 where the path's window would have made them
     * larger, made the flood round trip of 512 B-4 KiB Mediums 15-20 % slower. The envelopes of payloads copied apart
     * ({@link #claimEnvelope}) do not count: polling every 64 of them made the two-way flood of 16-64 KiB Longs 40 %
     * slower, each rank's copy then meeting the lines of its source that its peer's copy had just written.
     */
    static final int POLL_EVERY_REQUESTS = 64;

    private final Client client;
    private final Conduit conduit;
    private final AmStats stats;
    private final int rank;
    private final long backPressureTimeoutNs;
    /** {@link #POLL_BEFORE_REQUEST_BYTES}, or more than any frame where polling costs a system call. */
    private final int pollBeforeRequestBytes;
    /** Request frames since the last poll before one; shared by sending threads without care: a count for a hint. */
    private int requestsSincePoll;
    /**
     * Each sending thread's claim: a handler's reply on a thread waiting to send reuses it before that send has one.
     */
    private final ThreadLocal<Claim> sendClaims = ThreadLocal.withInitial(() -> new Claim(Thread.currentThread()));
    private Claim lastClaim = new Claim(null);

    /** Marks a claim of {@link #loopback} memory: no conduit handle is negative. */
    private static final long LOOPBACK = -1;
    /**
     * Frames to this rank are written here, one buffer per channel, and handed to {@link #deliverer} at commit by the
     * thread that holds the client's delivery lock (a reply to a looped-back request nests inside its handler, in the
     * other channel's buffer). Null until the AM layer's dispatcher exists.
     */
    private AtomicBuffer[] loopback;
    private ConduitListener deliverer;

    AmClaims(Client client, Conduit conduit, AmStats stats, long backPressureTimeoutNs) {
        this.client = client;
        this.conduit = conduit;
        this.stats = stats;
        this.rank = client.rank();
        this.backPressureTimeoutNs = backPressureTimeoutNs;
        this.pollBeforeRequestBytes = conduit.capabilities().crossMapped() ? POLL_BEFORE_REQUEST_BYTES
            : Integer.MAX_VALUE;
    }

    /**
     * The calling thread's claim. The last thread's is kept in a field, checked against the caller, so that a thread
     * that sends again skips the thread-local lookup; one reference write publishes claim and owner together.
     */
    Claim sendClaim() {
        final Claim last = lastClaim;
        if (last.owner() == Thread.currentThread()) {
            return last;
        }
        final Claim mine = sendClaims.get();
        lastClaim = mine;
        return mine;
    }

    /**
     * From now on, frames of up to {@code maxLength} bytes to this rank go straight to {@code dispatcher} when they
     * can ({@link #claimLoopback}).
     */
    void loopBackTo(ConduitListener dispatcher, int maxLength) {
        final AtomicBuffer[] buffers = new AtomicBuffer[2];
        for (int channel = 0; channel < 2; channel++) {
            buffers[channel] = new UnsafeBuffer(ByteBuffer.allocateDirect(maxLength));
        }
        loopback = buffers;
        deliverer = dispatcher;
    }

    /**
     * Claims this rank's loopback buffer for a frame to itself, delivered at commit: its handler runs inside the send,
     * as GASNet-EX runs loopback AMs, instead of crossing the conduit (a ring, a socket, a NIC) to be polled later.
     * Taken when the frame fits and this thread can take the client's delivery lock, so handlers still run one at a
     * time; otherwise the frame goes through the conduit. It may overtake frames to itself already there: AMs are
     * unordered. @return whether it did
     */
    boolean claimLoopback(Claim claim, int channel, int length) {
        final AtomicBuffer[] buffers = loopback;
        if (buffers == null || length > buffers[channel].capacity() || !CORE.tryHoldDelivery(client)) {
            return false;
        }
        claim.set(buffers[channel], 0, length, rank, channel, LOOPBACK);
        return true;
    }

    /**
     * Claims a frame that carries its payload, if any, polling first where {@link #pollsBefore} says.
     *
     * @return {@code claim}, filled, or null if IMMEDIATE and the path was full
     */
    Claim claimRoom(Claim claim, int peer, int channel, int length, int flags) {
        if (channel == Conduit.REQUEST && (flags & Flags.IMMEDIATE) == 0) {
            final int mask = pollsBefore(length);
            if (mask != 0) {
                CORE.pollBeforeRequest(client, mask);
            }
        }
        return claimWithoutPolling(claim, peer, channel, length, flags);
    }

    /**
     * Claims the envelope of a payload that travels apart (a Long copied into the peer's segment, a rendezvous), which
     * does not poll first: see {@link #POLL_EVERY_REQUESTS}.
     *
     * @return {@code claim}, filled, or null if IMMEDIATE and the path was full
     */
    Claim claimEnvelope(Claim claim, int peer, int channel, int length, int flags) {
        return claimWithoutPolling(claim, peer, channel, length, flags);
    }

    private Claim claimWithoutPolling(Claim claim, int peer, int channel, int length, int flags) {
        if (claimOnce(claim, peer, channel, length) == Conduit.OK) {
            return claim;
        }
        if ((flags & Flags.IMMEDIATE) != 0) {
            return null;
        }
        return claimSlowly(claim, peer, channel, length);
    }

    /**
     * Which channels a request frame of {@code length} bytes polls first, on a cross-mapped conduit: all of them from
     * {@link #POLL_BEFORE_REQUEST_BYTES}, the request channel once every {@link #POLL_EVERY_REQUESTS} smaller frames,
     * none otherwise (0).
     */
    private int pollsBefore(int length) {
        if (pollBeforeRequestBytes == Integer.MAX_VALUE) {
            return 0;
        }
        if (length >= pollBeforeRequestBytes) {
            requestsSincePoll = 0;
            return Conduit.ALL_CHANNELS;
        }
        if (++requestsSincePoll < POLL_EVERY_REQUESTS) {
            return 0;
        }
        requestsSincePoll = 0;
        return 1 << Conduit.REQUEST;
    }

    private Claim claimSlowly(Claim claim, int peer, int channel, int length) {
        stats.stalled();
        CORE.resetBackoff(client);
        final long start = System.nanoTime();
        while (true) {
            CORE.progressWhileBlocked(client);
            if (claimOnce(claim, peer, channel, length) == Conduit.OK) {
                return claim;
            }
            if (System.nanoTime() - start > backPressureTimeoutNs) {
                throw new GexTimeoutException("rank " + rank + ": the AM "
                    + (channel == Conduit.REQUEST ? "request" : "reply") + " path to rank " + peer + " stayed full for "
                    + backPressureTimeoutNs / 1_000_000_000L + " s (GEX_BACKPRESSURE_TIMEOUT); is rank " + peer
                    + " polling?");
            }
        }
    }

    private int claimOnce(Claim claim, int peer, int channel, int length) {
        try {
            return conduit.claim(claim, peer, channel, length);
        } catch (IllegalStateException e) {
            throw CORE.closedOr(client, e); // another thread closed the client: named, not its conduit
        }
    }

    /** Sends a filled frame, counted by what its header says. */
    void commit(Claim c) {
        stats.sent(c.buffer(), c.offset());
        if (c.handle() == LOOPBACK) {
            try {
                deliverer.onFrame(c.channel(), c.buffer(), 0, c.length());
            } finally {
                CORE.releaseDelivery(client);
            }
            return;
        }
        try {
            conduit.commit(c);
        } catch (IllegalStateException e) {
            throw CORE.closedOr(client, e); // another thread closed the client: named, not its conduit
        }
    }

    /** Gives up a claimed frame unsent. */
    void abort(Claim c) {
        if (c.handle() == LOOPBACK) {
            CORE.releaseDelivery(client);
            return;
        }
        conduit.abort(c);
    }
}
