package org.gexj.coll;

import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.gexj.Client;
import org.gexj.Flags;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Args;
import org.gexj.am.Payload;
import org.gexj.am.Token;
import org.gexj.am.internal.AmAccess;
import org.gexj.coll.wire.CollArgs;
import org.gexj.internal.ClientProgress;
import org.gexj.internal.CoreAccess;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * Moves the collectives: every message is a Medium request to one library handler ({@link #HANDLER}), and the work
 * that sends (starting a collective, forwarding what arrived) runs in the client's polls as a {@link ClientProgress},
 * because a handler may not send requests. Handler and progress both run on the thread holding the client's
 * delivery, one at a time, so the collectives' state needs no locks; users' threads only queue new collectives.
 *
 * <p>A piece may arrive before this rank has started its collective (a faster member is ahead), or before this rank
 * has finished the split that makes its team: it is kept, copied, until the collective starts. Every send is a try:
 * a full path leaves the rest for the next poll, so progress never waits.
 */
final class CollEngine implements ClientProgress {
    static final int HANDLER = 96;
    private static final CoreAccess CORE = CoreAccess.get();

    /** A piece that came before its collective started; pooled, its buffer reused. */
    private static final class Early {
        int fromJob;
        int word;
        int offset;
        int total;
        int length;
        byte[] data = new byte[64];
    }

    /** Operations in flight at once whose objects are kept for reuse; more are made and dropped. */
    private static final int POOLED = 256;
    /** Collectives queued by users' threads and not yet started, at most; a full queue makes the caller poll. */
    private static final int QUEUED = 1024;

    private final Client client;
    private final Am am;
    private final ManyToOneConcurrentArrayQueue<CollOperation> submitted = new ManyToOneConcurrentArrayQueue<>(QUEUED);
    private final ManyToManyConcurrentArrayQueue<CollOperation> free = new ManyToManyConcurrentArrayQueue<>(POOLED);
    private final Long2ObjectHashMap<CollOperation> started = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<ArrayList<Early>> early = new Long2ObjectHashMap<>();
    private final ArrayDeque<Early> freeEarly = new ArrayDeque<>();
    private final ArrayDeque<ArrayList<Early>> freeLists = new ArrayDeque<>();
    private final ArrayList<CollOperation> active = new ArrayList<>();
    /** Failure notices still to send: team id, sequence, word, reason, job rank. */
    private final ArrayDeque<int[]> notices = new ArrayDeque<>();
    private final int[] args = new int[CollArgs.COUNT];
    private final int flatBelowBytes;
    private final int flatMaxRanks;
    private volatile boolean hooked;
    private int work;

    CollEngine(Client client) {
        this.client = client;
        this.am = Am.of(client);
        this.flatBelowBytes = (int) client.config().getLong("GEX_COLL_FLAT_BELOW", 4096, 0, Integer.MAX_VALUE);
        this.flatMaxRanks = (int) client.config().getLong("GEX_COLL_FLAT_RANKS", 4, 2, Integer.MAX_VALUE);
        AmAccess.get().registerSystem(am, HANDLER, AmHandler.mediumRequest(CollArgs.COUNT, this::onPiece)
            .named("coll"));
    }

    /** An operation object to {@link CollOperation#init}: a pooled one, or a new one. */
    CollOperation operation() {
        final CollOperation op = free.poll();
        return op != null ? op : new CollOperation();
    }

    /** Queues {@code op} for the next poll, and polls once so that it starts now where it can. */
    void submit(CollOperation op) {
        if (!hooked) {
            hook();
        }
        CORE.begin(op.event, 1);
        while (!submitted.offer(op)) {
            CORE.progressWhileBlocked(client); // its poll starts what is queued
        }
        CORE.pollBeforeRequest(client);
    }

    private synchronized void hook() {
        if (!hooked) {
            CORE.setProgress(client, this);
            hooked = true;
        }
    }

    @Override
    public int progress() {
        work = 0;
        CollOperation op;
        while ((op = submitted.poll()) != null) {
            start(op);
        }
        for (int i = 0; i < active.size(); ) {
            op = active.get(i);
            if (op.advance(this)) {
                finish(op);
                active.set(i, active.get(active.size() - 1));
                active.remove(active.size() - 1);
            } else {
                i++;
            }
        }
        sendNotices();
        return work;
    }

    private void start(CollOperation op) {
        final int n = op.team.size();
        // a flat tree (one step) for small data on small teams, else binomial (log2 n steps, each rank sends less)
        op.start(op.length <= flatBelowBytes && n <= flatMaxRanks ? Math.max(2, n) : 2);
        started.put(op.key(), op);
        active.add(op);
        work++;
        final ArrayList<Early> before = early.remove(op.key());
        if (before != null) {
            for (int i = 0; i < before.size(); i++) {
                final Early e = before.get(i);
                final int from = op.team.teamRankUnchecked(e.fromJob);
                if (CollArgs.phase(e.word) == CollArgs.PHASE_FAILED) {
                    op.failedElsewhere(from, e.offset);
                } else {
                    final MemorySegment to = op.accept(this, from, e.word, e.offset, e.total, e.length);
                    if (to != null) {
                        MemorySegment.copy(e.data, 0, to, ValueLayout.JAVA_BYTE, e.offset, e.length);
                    }
                }
                freeEarly.push(e);
            }
            before.clear();
            freeLists.push(before);
        }
    }

    private void finish(CollOperation op) {
        work++;
        if (op.failed()) {
            CORE.fail(op.event, 1, op.failure()); // stays in `started`, so that its late pieces are dropped
        } else {
            started.remove(op.key());
            final org.gexj.Event event = op.event;
            op.clear();
            free.offer(op); // dropped when the pool is full
            CORE.complete(event, 1);
        }
    }

    private void onPiece(Token token, Payload payload, Args a) {
        final long key = (long) a.get(CollArgs.TEAM) << 32 | (a.get(CollArgs.SEQUENCE) & 0xFFFF_FFFFL);
        final int word = a.get(CollArgs.WORD);
        final int offset = a.get(CollArgs.OFFSET);
        final CollOperation op = started.get(key);
        if (op == null) {
            keep(key, token.sourceRank(), word, offset, a.get(CollArgs.TOTAL), payload);
            return;
        }
        final int from = op.team.teamRankUnchecked(token.sourceRank());
        if (CollArgs.phase(word) == CollArgs.PHASE_FAILED) {
            op.failedElsewhere(from, offset);
            return;
        }
        final MemorySegment to = op.accept(this, from, word, offset, a.get(CollArgs.TOTAL), payload.length());
        if (to != null && payload.length() > 0) {
            payload.copyTo(0, to, offset, payload.length());
        }
    }

    /** Copies a piece for a collective not started yet, in pooled memory. */
    private void keep(long key, int fromJob, int word, int offset, int total, Payload payload) {
        ArrayList<Early> list = early.get(key);
        if (list == null) {
            list = freeLists.isEmpty() ? new ArrayList<>() : freeLists.pop();
            early.put(key, list);
        }
        final Early e = freeEarly.isEmpty() ? new Early() : freeEarly.pop();
        final int length = (int) payload.length();
        if (e.data.length < length) {
            e.data = new byte[length];
        }
        payload.getBytes(0, e.data, 0, length);
        e.fromJob = fromJob;
        e.word = word;
        e.offset = offset;
        e.total = total;
        e.length = length;
        list.add(e);
    }

    /** Tries to send one piece of {@code op} to its team's rank {@code to}; false if the path is full. */
    boolean trySend(CollOperation op, int to, int phase, int offset, MemorySegment data, int bytes) {
        args[CollArgs.TEAM] = op.team.id;
        args[CollArgs.SEQUENCE] = op.sequence;
        args[CollArgs.WORD] = CollArgs.word(op.kind, phase, op.root);
        args[CollArgs.OFFSET] = offset;
        args[CollArgs.TOTAL] = op.length;
        final int code = am.requestMedium(op.team.jobRank(to), HANDLER, data, offset, bytes, Lc.NOW, Flags.IMMEDIATE,
            args, CollArgs.COUNT);
        if (code != Am.OK) {
            return false;
        }
        work++;
        return true;
    }

    /** The largest piece to {@code jobRank}. */
    int chunk(int jobRank) {
        return (int) Math.min(Integer.MAX_VALUE, am.maxRequestMedium(jobRank, CollArgs.COUNT));
    }

    /** Tells every other member of {@code op}'s team that it failed here, so that none waits for this rank. */
    void notifyFailure(CollOperation op, int reason) {
        for (int r = 0; r < op.team.size(); r++) {
            if (r != op.team.rank()) {
                notices.add(new int[] {op.team.id, op.sequence, CollArgs.word(op.kind, CollArgs.PHASE_FAILED, op.root),
                    reason, op.team.jobRank(r)});
            }
        }
    }

    private void sendNotices() {
        int[] n;
        while ((n = notices.peek()) != null) {
            args[CollArgs.TEAM] = n[0];
            args[CollArgs.SEQUENCE] = n[1];
            args[CollArgs.WORD] = n[2];
            args[CollArgs.OFFSET] = n[3];
            args[CollArgs.TOTAL] = 0;
            if (am.requestMedium(n[4], HANDLER, null, 0, 0, Lc.NOW, Flags.IMMEDIATE, args, CollArgs.COUNT) != Am.OK) {
                return;
            }
            notices.poll();
            work++;
        }
    }
}
