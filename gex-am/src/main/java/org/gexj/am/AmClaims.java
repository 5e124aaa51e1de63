package org.gexj.am;

import org.gexj.Client;
import org.gexj.Flags;
import org.gexj.GexTimeoutException;
import org.gexj.internal.CoreAccess;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;

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

    private final Client client;
    private final Conduit conduit;
    private final AmStats stats;
    private final int rank;
    private final long backPressureTimeoutNs;
    /** {@link #POLL_BEFORE_REQUEST_BYTES}, or more than any frame where polling costs a system call. */
    private final int pollBeforeRequestBytes;
    /**
     * Each sending thread's claim: a handler's reply on a thread waiting to send reuses it before that send has one.
     */
    private final ThreadLocal<Claim> sendClaims = ThreadLocal.withInitial(() -> new Claim(Thread.currentThread()));
    private Claim lastClaim = new Claim(null);

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

    /** @return {@code claim}, filled, or null if IMMEDIATE and the path was full */
    Claim claimRoom(Claim claim, int peer, int channel, int length, int flags) {
        if (length >= pollBeforeRequestBytes && channel == Conduit.REQUEST && (flags & Flags.IMMEDIATE) == 0) {
            CORE.pollBeforeRequest(client);
        }
        if (claimOnce(claim, peer, channel, length) == Conduit.OK) {
            return claim;
        }
        if ((flags & Flags.IMMEDIATE) != 0) {
            return null;
        }
        return claimSlowly(claim, peer, channel, length);
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
        try {
            conduit.commit(c);
        } catch (IllegalStateException e) {
            throw CORE.closedOr(client, e); // another thread closed the client: named, not its conduit
        }
    }

    /** Gives up a claimed frame unsent. */
    void abort(Claim c) {
        conduit.abort(c);
    }
}
