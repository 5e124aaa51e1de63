package org.gexj.ibv;

import org.gexj.ibv.wire.IbvConnectFlyweight;

import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * The on-demand connection protocol ({@code GEX_IBV_CONNECT=ondemand}, after ARMCI's on-demand connections): a rank
 * makes its RC queue pair toward a peer when it first sends there, and the two exchange QP numbers in datagrams
 * ({@link IbvConnectFlyweight}) over each rank's UD queue pair, which may lose, repeat or reorder them.
 *
 * <p>Per peer: {@link #NONE} → (this rank wants to send) make the QP, send REQUEST → {@link #REQUESTED}. A REQUEST
 * from the peer, in any state: make the QP if there is none, connect it to the peer's (RTR, RTS), answer REPLY →
 * {@link #ANSWERED}. A REPLY: connect if not yet, answer READY → {@link #CONNECTED}. A READY in {@link #ANSWERED} →
 * {@link #CONNECTED}. Only {@link #CONNECTED} sends: then the peer's QP is known to be past RTR, so nothing sent is
 * dropped by a QP not yet ready to receive. Requests and replies not yet answered go again after a back-off.
 *
 * <p>Why one QP pair and no deadlock: each side makes at most one QP per peer and every message it sends carries that
 * QP's number, so two requests that cross connect the same two QPs; each side answers the other's request, and each
 * reply is answered by READY, so both reach {@link #CONNECTED} however the datagrams are lost, as long as some get
 * through. A message naming another QP than the one already connected (a stale or foreign one) is dropped and counted.
 *
 * <p>Threads: not thread-safe; {@link IbvNic} calls it under the engine's lock. The data path reads only
 * {@link #connected(int)}, one array load.
 */
final class IbvConnector {
    static final int NONE = 0;
    static final int REQUESTED = 1;
    static final int ANSWERED = 2;
    static final int CONNECTED = 3;

    /** First retry of an unanswered request or reply; then doubled, up to {@link #MAX_RETRY_NS}. */
    static final long FIRST_RETRY_NS = 5_000_000L;
    static final long MAX_RETRY_NS = 500_000_000L;

    /** What the protocol asks of the verbs objects (the real ones in {@link IbvNic}, a simulation in tests). */
    interface Link {
        /** Makes the RC QP toward {@code peer}, in INIT, and returns its number. */
        int createQp(int peer);

        /** Moves the QP toward {@code peer} to RTR and RTS against the peer's QP {@code remoteQpn}. */
        void connect(int peer, int remoteQpn, int remotePsn, int localPsn);

        /** Sends a datagram of {@code kind} to {@code peer}'s UD QP; a loss is not an error (it is retried). */
        void send(int peer, int kind, int qpn, int psn);
    }

    private final Link link;
    private final int rank;
    private final long timeoutNanos;
    private final byte[] state;
    private final int[] localQpn;
    private final int[] localPsn;
    private final int[] remoteQpn;
    /** When the state's message goes again, and since when the peer has been awaited (for the timeout). */
    private final long[] retryAt;
    private final long[] retryGap;
    private final long[] awaitedSince;
    /** The data path asked for the peer and it is not connected yet: it fails after the timeout. */
    private final boolean[] wanted;
    /** When this rank asked for the connection (its REQUEST), to time the set-up; whether it did. */
    private final long[] requestedAt;
    private final boolean[] asked;
    private int pending;
    private long requests;
    private long retries;
    private long dropped;
    private long setupNanos;
    private int connections;

    /**
     * @param psns draws each QP's first packet sequence number
     */
    IbvConnector(Link link, int rank, int size, long timeoutNanos, RandomGenerator psns) {
        this.link = link;
        this.rank = rank;
        this.timeoutNanos = timeoutNanos;
        this.state = new byte[size];
        this.localQpn = new int[size];
        this.localPsn = new int[size];
        this.remoteQpn = new int[size];
        this.retryAt = new long[size];
        this.retryGap = new long[size];
        this.awaitedSince = new long[size];
        this.wanted = new boolean[size];
        this.requestedAt = new long[size];
        this.asked = new boolean[size];
        Arrays.fill(remoteQpn, -1);
        for (int p = 0; p < size; p++) {
            localPsn[p] = psns.nextInt(1 << 24);
        }
    }

    /** Whether this rank may send to {@code peer} now. */
    boolean connected(int peer) {
        return state[peer] == CONNECTED;
    }

    /** Whether {@code peer} is more than {@link #NONE}: it takes part in the close's handshake. */
    boolean started(int peer) {
        return state[peer] != NONE;
    }

    int state(int peer) {
        return state[peer];
    }

    /** Whether a request or reply awaits an answer: the caller then reads datagrams at every poll. */
    boolean busy() {
        return pending > 0;
    }

    /** A peer this rank made a connection to, or was connected by (no matter the state). */
    int connections() {
        return connections;
    }

    /** Requests sent first (not counting their retries). */
    long requests() {
        return requests;
    }

    long retries() {
        return retries;
    }

    /** Nanoseconds from each of this rank's requests to its connection, summed over {@link #requests()}. */
    long setupNanos() {
        return setupNanos;
    }

    /** Datagrams dropped because they named another QP than the one connected, or came in no fitting state. */
    long dropped() {
        return dropped;
    }

    /** Marks {@code peer} connected without any exchange: this rank itself, or every peer in {@code static} mode. */
    void connectedAtOpen(int peer) {
        if (state[peer] != NONE) {
            throw new IllegalStateException("rank " + peer + " is already in connection state " + state[peer]);
        }
        state[peer] = CONNECTED;
        connections++;
    }

    /**
     * The data path wants to send to {@code peer}, which is not connected: starts the connection if none is under
     * way, and from now the peer must answer within the timeout.
     */
    void want(int peer, long now) {
        if (!wanted[peer]) {
            wanted[peer] = true;
            awaitedSince[peer] = now;
        }
        if (state[peer] == NONE) {
            requestedAt[peer] = now;
            asked[peer] = true;
            localQpn[peer] = link.createQp(peer);
            connections++;
            requests++;
            enter(peer, REQUESTED, now);
            link.send(peer, IbvConnectFlyweight.REQUEST, localQpn[peer], localPsn[peer]);
        }
    }

    /** A datagram from {@code peer} (already checked: {@link IbvConnectFlyweight#valid}). */
    void receive(int peer, int kind, int qpn, int psn, long now) {
        final int s = state[peer];
        if (remoteQpn[peer] >= 0 && remoteQpn[peer] != qpn) {
            dropped++; // another QP than the one connected: stale, or a peer that was restarted
            return;
        }
        switch (kind) {
            case IbvConnectFlyweight.REQUEST -> {
                if (s == NONE) {
                    localQpn[peer] = link.createQp(peer);
                    connections++;
                }
                if (remoteQpn[peer] < 0) {
                    connectTo(peer, qpn, psn);
                }
                if (s != CONNECTED) {
                    enter(peer, ANSWERED, now);
                }
                // a repeated request means our reply was lost: answer again, whatever the state
                link.send(peer, IbvConnectFlyweight.REPLY, localQpn[peer], localPsn[peer]);
            }
            case IbvConnectFlyweight.REPLY -> {
                if (s == NONE) {
                    dropped++; // nothing was asked: a reply of another incarnation
                    return;
                }
                if (remoteQpn[peer] < 0) {
                    connectTo(peer, qpn, psn);
                }
                if (s != CONNECTED) {
                    enter(peer, CONNECTED, now);
                }
                // the peer's QP is connected (it replied); ours too: it may send once it hears READY
                link.send(peer, IbvConnectFlyweight.READY, localQpn[peer], localPsn[peer]);
            }
            case IbvConnectFlyweight.READY -> {
                if (s == ANSWERED) {
                    enter(peer, CONNECTED, now);
                } else if (s != CONNECTED) {
                    dropped++;
                }
            }
            default -> dropped++;
        }
    }

    private void connectTo(int peer, int qpn, int psn) {
        link.connect(peer, qpn, psn, localPsn[peer]);
        remoteQpn[peer] = qpn;
    }

    private void enter(int peer, int next, long now) {
        final boolean wasPending = state[peer] == REQUESTED || state[peer] == ANSWERED;
        final boolean isPending = next == REQUESTED || next == ANSWERED;
        state[peer] = (byte) next;
        pending += (isPending ? 1 : 0) - (wasPending ? 1 : 0);
        if (isPending) {
            retryGap[peer] = FIRST_RETRY_NS;
            retryAt[peer] = now + FIRST_RETRY_NS;
            if (!wanted[peer]) {
                awaitedSince[peer] = now;
            }
        } else if (next == CONNECTED) {
            wanted[peer] = false;
            if (asked[peer]) {
                setupNanos += now - requestedAt[peer];
            }
        }
    }

    /**
     * Sends again each request or reply whose answer is overdue, backing off.
     *
     * @return a peer the data path has waited for longer than the timeout, or -1
     */
    int tick(long now) {
        if (pending == 0) {
            return -1;
        }
        int late = -1;
        for (int p = 0; p < state.length; p++) {
            final int s = state[p];
            if ((s != REQUESTED && s != ANSWERED) || now - retryAt[p] < 0) {
                continue;
            }
            if (wanted[p] && now - awaitedSince[p] > timeoutNanos) {
                late = late < 0 ? p : late;
                continue;
            }
            if (!wanted[p] && s == ANSWERED && now - awaitedSince[p] > timeoutNanos) {
                continue; // the peer asked, got replies, and went quiet: nobody here waits for it
            }
            retries++;
            retryGap[p] = Math.min(MAX_RETRY_NS, retryGap[p] * 2);
            retryAt[p] = now + retryGap[p];
            link.send(p, s == REQUESTED ? IbvConnectFlyweight.REQUEST : IbvConnectFlyweight.REPLY, localQpn[p],
                localPsn[p]);
        }
        return late;
    }

    /** The reason {@code peer} failed {@link #tick}: names it, the state and the timeout. */
    String lateReason(int peer, String setting) {
        return "rank " + peer + " did not complete an on-demand connection in " + timeoutNanos / 1_000_000_000L
            + " s (" + (state[peer] == REQUESTED ? "no reply to " + retries + " request(s) and retries"
            : "no READY after its request") + " over the UD queue pair; " + setting + ")";
    }
}
