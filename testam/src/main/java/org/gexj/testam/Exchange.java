package org.gexj.testam;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Lc;
import org.gexj.am.Am;

import java.lang.foreign.MemorySegment;

/**
 * One rank's side of testam's pair: who it talks to, the counter its reply handlers advance, and the timed loops.
 *
 * <p>Pairing as in GASNet: rank i talks to i^1 (or i+n/2 with -c); even ranks send; an odd rank count leaves the
 * last rank talking to itself.
 *
 * <p>{@code flag} is a plain field although {@code -p} pollers run handlers on other threads: handlers run only
 * under the client's poll lock, and every wait loop polls, so each read of {@code flag} follows an acquire of that
 * lock's state.
 *
 * <p>Each timed loop is a small method of its own, shared by the warm-up and the timed pass (GASNet's warm-up floods
 * included), so the JIT compiles it once during the warm-up instead of on-stack-replacing a large section method in
 * the middle of a measurement. The loops allocate nothing and call only final methods of this final class.
 */
final class Exchange {
    /** GASNet's cap on the warm-up iterations at the start of each category. */
    private static final int MAX_WARMUP_ITERS = 10_000;

    private final Client client;
    private final Am am;
    private final TestAmOptions options;
    private final SourceFiller filler;
    /** Where a sender's Medium and Long payloads come from: the segment, or memory outside it. */
    private final MemorySegment source;
    private final Lc requestLc;
    final int peer;
    final boolean sender;
    final boolean recvr;
    /** Where Long requests land in the peer's segment; apart from the replies' destination when talking to oneself. */
    final long requestDest;
    /** Replies (and, between a sender and a receiver, requests) handled so far: what the wait loops wait for. */
    int flag;
    /** The current pass's iterations: a warm-up pass uses its own. */
    int iters;
    int warmupIters;

    Exchange(Client client, Am am, TestAmOptions options, SourceFiller filler, MemorySegment source) {
        this.client = client;
        this.am = am;
        this.options = options;
        this.filler = filler;
        this.source = source;
        final int rank = client.rank();
        final int size = client.size();
        if (options.crossMachine()) {
            if (size % 2 == 1 && rank == size - 1) {
                sender = true;
                peer = rank;
            } else {
                final int half = size / 2;
                sender = rank < half;
                peer = sender ? rank + half : rank - half;
            }
        } else {
            final int p = rank ^ 1;
            sender = rank % 2 == 0;
            peer = p == size ? rank : p;
        }
        this.recvr = !sender || peer == rank;
        this.requestLc = options.asyncRequests() ? Lc.GROUP : Lc.NOW;
        this.requestDest = peer == rank ? TestAm.align(options.maxSize(), Long.BYTES) : 0;
    }

    /** Starts a pass of {@code passIters} iterations per measurement. */
    void iterations(int passIters) {
        iters = passIters;
        warmupIters = Math.min(passIters, MAX_WARMUP_ITERS);
    }

    /**
     * GASNet's {@code GASNET_BLOCKUNTIL} ({@code GASNETI_SPIN_WHILE}): nothing if the condition holds, else poll and
     * check until it does, with the pause hint only between a check that failed and the next poll, never between the
     * poll that delivered and the check that sees it.
     */
    void blockUntil(int value) {
        if (flag == value) {
            return;
        }
        while (true) {
            client.poll();
            if (flag == value) {
                return;
            }
            Thread.onSpinWait();
        }
    }

    void requestShort(int handler) {
        am.requestShort(peer, handler);
    }

    void request(Category category, int handler, long sz) {
        final boolean medium = category == Category.MEDIUM;
        switch (options.payload()) {
            case FIXED -> {
                filler.fill(source, 0, sz);
                if (medium) {
                    am.requestMedium(peer, handler, source, 0, sz, requestLc);
                } else {
                    am.requestLong(peer, handler, source, 0, sz, requestDest, requestLc);
                }
            }
            case NEGOTIATED_GASNET_BUFFER -> filler.commit(medium
                ? am.prepareRequestMedium(peer, null, sz, sz, null, 0, 0)
                : am.prepareRequestLong(peer, null, sz, sz, requestDest, null, 0, 0), handler, sz);
            case NEGOTIATED_CLIENT_BUFFER -> filler.commit(medium
                ? am.prepareRequestMedium(peer, source, sz, sz, requestLc, 0, 0)
                : am.prepareRequestLong(peer, source, sz, sz, requestDest, requestLc, 0, 0), handler, sz);
        }
    }

    void completeRequests() {
        if (options.asyncRequests()) {
            am.nbiWait(Ec.AM);
        }
    }

    // ------------------------------------------------------------------------------------------------ timed loops

    void shortPingPong() {
        flag = -1;
        for (int i = 0; i < iters; i++) {
            am.requestShort(peer, Handlers.PING_SHORT);
            blockUntil(i);
        }
    }

    void shortReqReq() {
        if (sender && recvr) {
            for (int i = 0; i < iters; i++) {
                am.requestShort(peer, Handlers.PONG_SHORT);
                blockUntil(2 * i);
                am.requestShort(peer, Handlers.PONG_SHORT);
                blockUntil(2 * i + 1);
            }
        } else if (sender) {
            for (int i = 0; i < iters; i++) {
                am.requestShort(peer, Handlers.PONG_SHORT);
                blockUntil(i);
            }
        } else if (recvr) {
            for (int i = 0; i < iters; i++) {
                blockUntil(i);
                am.requestShort(peer, Handlers.PONG_SHORT);
            }
        }
    }

    void shortFlood(int handler, int n) {
        for (int i = 0; i < n; i++) {
            am.requestShort(peer, handler);
        }
    }

    void pingPong(Category category, int handler, long sz) {
        flag = -1;
        for (int i = 0; i < iters; i++) {
            request(category, handler, sz);
            blockUntil(i);
        }
    }

    void reqReq(Category category, int handler, long sz) {
        if (sender && recvr) {
            for (int i = 0; i < iters; i++) {
                request(category, handler, sz);
                blockUntil(2 * i);
                request(category, handler, sz);
                blockUntil(2 * i + 1);
            }
        } else if (sender) {
            for (int i = 0; i < iters; i++) {
                request(category, handler, sz);
                blockUntil(i);
            }
        } else if (recvr) {
            for (int i = 0; i < iters; i++) {
                blockUntil(i);
                request(category, handler, sz);
            }
        }
    }

    void flood(Category category, int handler, long sz, int n) {
        for (int i = 0; i < n; i++) {
            request(category, handler, sz);
        }
    }
}
