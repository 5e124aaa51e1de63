package org.gexj.rma;

import org.gexj.Client;
import org.gexj.GexTimeoutException;
import org.gexj.am.Am;
import org.gexj.am.Args;
import org.gexj.am.Token;
import org.gexj.internal.CoreAccess;

/**
 * The flow control of put and get with completion: {@code GEX_PWC_CREDITS} toward each peer, one taken per operation
 * with a remote completion, returned by the target in one AM Short per half of them as it probes those completions,
 * so that an initiator cannot fill a target that does not probe. An initiator with no credit polls until one comes
 * back, and after {@code GEX_BACKPRESSURE_TIMEOUT} throws naming the rank that does not probe.
 *
 * <p>Threads: any; the counts are guarded by {@link #credits}'s lock, never held while sending or polling.
 */
final class PwcCredits {
    private static final CoreAccess CORE = CoreAccess.get();

    private final Am am;
    private final Client client;
    private final int handler;
    private final int perPeer;
    private final long timeoutNs;
    /** Credits toward each peer. */
    private final int[] credits;
    /** Completions from each source probed but not yet returned; guarded by {@link #credits}. */
    private final int[] unreturned;

    /**
     * @param handler the AM Short request handler index that carries returned credits to {@link #onCredits}
     * @param perPeer {@code GEX_PWC_CREDITS}
     */
    PwcCredits(Am am, int handler, int perPeer, long timeoutNs) {
        this.am = am;
        this.client = am.client();
        this.handler = handler;
        this.perPeer = perPeer;
        this.timeoutNs = timeoutNs;
        this.credits = new int[client.size()];
        java.util.Arrays.fill(credits, perPeer);
        this.unreturned = new int[client.size()];
    }

    /** Takes a credit toward {@code peer}, polling while there is none. */
    void take(int peer) {
        if (tryTake(peer)) {
            return;
        }
        final long start = System.nanoTime();
        CORE.resetBackoff(client);
        while (true) {
            CORE.progressWhileBlocked(client);
            if (tryTake(peer)) {
                return;
            }
            if (System.nanoTime() - start > timeoutNs) {
                throw new GexTimeoutException("rank " + client.rank() + ": no credit toward rank " + peer + " for "
                    + timeoutNs / 1_000_000_000L + " s: rank " + peer + " has not probed the remote completions of"
                    + " the " + perPeer + " puts and gets with completion this rank sent it (GEX_PWC_CREDITS,"
                    + " GEX_BACKPRESSURE_TIMEOUT)");
            }
        }
    }

    private boolean tryTake(int peer) {
        synchronized (credits) {
            if (credits[peer] > 0) {
                credits[peer]--;
                return true;
            }
            return false;
        }
    }

    /** The handler of returned credits. */
    void onCredits(Token token, Args args) {
        synchronized (credits) {
            credits[token.sourceRank()] += args.get(0);
        }
    }

    /** Counts a probed completion from {@code source}; every half of its credits goes back in one message. */
    void returned(int source) {
        final int n;
        synchronized (credits) {
            n = ++unreturned[source];
            if (n < Math.max(1, perPeer / 2)) {
                return;
            }
            unreturned[source] = 0;
        }
        am.requestShort(source, handler, n);
    }
}
