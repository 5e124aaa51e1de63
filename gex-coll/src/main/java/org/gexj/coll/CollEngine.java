package org.gexj.coll;

import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.gexj.Client;
import org.gexj.Event;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Args;
import org.gexj.am.Payload;
import org.gexj.am.Token;
import org.gexj.am.internal.AmAccess;
import org.gexj.coll.wire.CollArgs;
import org.gexj.internal.ClientProgress;
import org.gexj.internal.CoreAccess;
import org.gexj.spi.Conduit;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Moves the collectives: every message is a Medium request to one library handler ({@link #HANDLER}, or
 * {@link #WHOLE_HANDLER} for a piece that is its whole message, with fewer arguments; {@link CollOutbox} sends
 * them), and the work that sends (starting a collective, forwarding what arrived) runs in the client's polls as a
 * {@link ClientProgress}, because a handler may not send requests. Handler and progress both run on the thread holding
 * the client's delivery, one at a time, so the collectives' state needs no locks. A user's thread starts its
 * collective itself where it can take the delivery, and else queues it for the thread that holds it.
 *
 * <p>A piece may arrive before this rank has started its collective (a faster member is ahead), or before this rank
 * has finished the split that makes its team: it is kept, copied, until the collective starts
 * ({@link CollEarlyPieces}). A piece of a collective this rank has finished (a late failure notice, or data for a
 * collective that failed here) is dropped: a team's collectives start here in sequence order, so one below the next to
 * start that is not running is done. Every send is a try: a full path leaves the rest for the next poll, so progress
 * never waits. How many collectives a rank keeps pieces for is bounded: a sender runs at most {@link CollFlow#WINDOW}
 * collectives ahead of a member.
 *
 * <p>Members whose calls differ find it where a piece reaches a rank whose own call expects another. Where none does
 * (a reduce-to-one whose ranks 0 and 1 name root 0 and rank 2 itself: each tree waits for a child that sends to
 * another parent), a collective that has heard nothing for {@code GEX_COLL_PROBE_MS} asks every member, once, to
 * compare its call ({@link CollArgs#PHASE_PROBE}). A member running it or finished with it (the last
 * {@link CollFlow#REMEMBERED}) answers a difference with a failure notice; one that has not started it keeps the
 * probe as an early piece. A member that is merely late never fails anyone, and a job in step sends no probe.
 */
final class CollEngine implements ClientProgress {
    static final int HANDLER = 96;
    /**
     * The handler of messages sent in one piece ({@link CollArgs#WHOLE_COUNT} arguments): 8 bytes fewer put a 16-byte
     * collective's frame within tcp;ofi_rxm's 64-byte inject size, which a send with a completion above it costs
     * about 2 us more (see docs/SITTINGS.md, twenty-eighth sitting).
     */
    static final int WHOLE_HANDLER = 97;
    private static final CoreAccess CORE = CoreAccess.get();

    /** Operations in flight at once whose objects are kept for reuse; more are made and dropped. */
    private static final int POOLED = 256;
    /** Of those, how many the delivery's holder keeps apart ({@link #spare}); the rest serve other threads. */
    private static final int SPARE = 64;
    /** Collectives queued by users' threads and not yet started, at most; a full queue makes the caller poll. */
    private static final int QUEUED = 1024;
    /** {@link #asksBefore}'s answer for no ask. */
    private static final long NONE = Long.MIN_VALUE;


    private final Client client;
    private final ManyToOneConcurrentArrayQueue<CollOperation> submitted = new ManyToOneConcurrentArrayQueue<>(QUEUED);
    private final ManyToManyConcurrentArrayQueue<CollOperation> free = new ManyToManyConcurrentArrayQueue<>(POOLED);
    /** Finished operations for the holder of the delivery, in {@code spare[0, spareCount)}: reused without atomics. */
    private final CollOperation[] spare = new CollOperation[SPARE];
    private int spareCount;
    private final Long2ObjectHashMap<CollOperation> started = new Long2ObjectHashMap<>();
    /** By id, the teams this rank has started a collective on: their {@link CollFlow}s. */
    private final Int2ObjectHashMap<Team> teams = new Int2ObjectHashMap<>();
    /** The team {@link #team} found last: pieces come in runs of one team's. */
    private Team lastTeam;
    /** Asks for teams not in {@link #teams} yet, by team id and job rank: what the asker knew. */
    private final Long2LongHashMap asksBefore = new Long2LongHashMap(NONE);
    private final CollEarlyPieces early = new CollEarlyPieces();
    /**
     * The operations a poll should advance: started, or woken by a piece, or held by a full path or the window. One
     * that waits for pieces leaves it until a piece comes ({@link #wake}): 1000 non-blocking broadcasts in flight took
     * a poll through all 1000 each time.
     */
    private final ArrayList<CollOperation> active = new ArrayList<>();
    private final CollOutbox outbox;
    /** The collectives done in their caller's call, with no operation (flat trees' simple cases). */
    private final CollInCall inCall;
    private final int flatBelowBytes;
    private final int flatMaxRanks;
    /**
     * The least reduction a leaf leaves in its segment for its parent to read in place, where segments are cross-mapped
     * ({@code GEX_COLL_IN_PLACE_MIN}); {@code Integer.MAX_VALUE} where they are not.
     */
    private final int inPlaceMin;
    /** Every rank's segment as this process maps it, once attached (in-place reductions only). */
    private MemorySegment[] peerSegments;
    private volatile boolean hooked;
    private int work;
    private final CollProbes probes;

    CollEngine(Client client) {
        this.client = client;
        final Am am = Am.of(client);
        this.outbox = new CollOutbox(am);
        this.flatBelowBytes = (int) client.config().getLong("GEX_COLL_FLAT_BELOW", 4096, 0, Integer.MAX_VALUE);
        this.flatMaxRanks = (int) client.config().getLong("GEX_COLL_FLAT_RANKS", 4, 2, Integer.MAX_VALUE);
        final int min = (int) client.config().getLong("GEX_COLL_IN_PLACE_MIN", 2048, 0, Integer.MAX_VALUE);
        this.inPlaceMin = client.capabilities().crossMapped() ? min : Integer.MAX_VALUE;
        this.probes = new CollProbes(outbox,
            client.config().getLong("GEX_COLL_PROBE_MS", 1000, 1, 3_600_000) * 1_000_000L);
        this.inCall = new CollInCall(this, outbox, early, flatBelowBytes, flatMaxRanks, inPlaceMin);
        AmAccess.get().registerSystem(am, HANDLER, AmHandler.mediumRequest(CollArgs.COUNT, this::onPiece)
            .named("coll"));
        AmAccess.get().registerSystem(am, WHOLE_HANDLER, AmHandler.mediumRequest(CollArgs.WHOLE_COUNT, this::onWhole)
            .named("coll-whole"));
    }

    /**
     * Starts a collective: numbers it, and where this thread can take the client's delivery and nothing is queued
     * before it, starts it at once and polls under the one hold. Else it queues it for the next poll, as a thread
     * that finds another polling must, and polls once so that it starts now where it can.
     *
     * <p>Why the direct way: queueing cost a collective four atomic instructions more on its caller's thread (the
     * queue, the pool's two ends, a second hold of the delivery). Each is a full fence on x86, and the first after a
     * send waits for the send's stores to reach the peer's cache line: the reduce-to-one leaf in testcollperf spent
     * 14% of its time in the pool's return alone.
     *
     * @return the collective's event, or {@link Event#DONE} where it is done already ({@link CollInCall},
     *         {@link #startedAndDone})
     */
    Event submit(Team team, int kind, int root, int length, MemorySegment dst, MemorySegment src,
                 ReduceFunction combine, long elementSize) {
        if (!hooked) {
            hook();
        }
        if (!CORE.tryHoldDelivery(client)) {
            final Event event = newEvent();
            queue(pooled().init(team, kind, root, length, dst, src, combine, elementSize, event));
            CORE.pollBeforeRequest(client, Conduit.ALL_CHANNELS);
            return event;
        }
        try {
            final CollOperation op = spareCount > 0 ? spare[--spareCount] : pooled();
            op.init(team, kind, root, length, dst, src, combine, elementSize, null);
            Event event;
            if (!team.issueFirst(op, submitted)) {
                event = op.event = newEvent();
                queue(op);
            } else if ((event = inCall.finish(op)) != null) {
                recycle(op);
            } else if (startedAndDone(op)) {
                event = Event.DONE;
            } else {
                event = op.event = newEvent();
            }
            CORE.pollBeforeRequest(client, Conduit.ALL_CHANNELS); // under the same hold: no second atomic
            return event;
        } finally {
            CORE.releaseDelivery(client);
        }
    }

    /**
     * Starts {@code op} and advances it once: where that completes it without a failure (a reduction's root whose
     * members' values came first, a flat broadcast's root, a barrier whose members are ahead), it is retired at once
     * and needs no event. Else it stays in the active list, as {@link #start} left it, for the polls.
     */
    private boolean startedAndDone(CollOperation op) {
        start(op);
        op.sendHeld = false;
        if (!op.advance(this) || op.failure() != null) {
            return false;
        }
        final int last = active.size() - 1;
        if (active.get(last) == op) {
            active.remove(last);
        } else {
            active.remove(op);
        }
        op.awake = false;
        retire(op);
        return true;
    }

    /** A pooled event, begun for one operation before any other thread can see it. */
    Event newEvent() {
        final Event event = CORE.pooledEvent(client);
        CORE.beginUnseen(event, 1);
        return event;
    }

    /** An operation object from the shared pool, or a new one (another thread held the delivery, or none is spare). */
    private CollOperation pooled() {
        final CollOperation op = free.poll();
        return op != null ? op : new CollOperation();
    }

    /** Numbers and queues {@code op}; polls while the queue is full. */
    private void queue(CollOperation op) {
        while (!op.team.issue(op, submitted)) {
            CORE.progressWhileBlocked(client); // its poll starts what is queued
        }
    }

    private synchronized void hook() {
        if (!hooked) {
            CORE.setProgress(client, this);
            hooked = true;
        }
    }

    @Override
    public int progress() {
        if (!started.isEmpty()) {
            probes.poll(started.values());
        }
        if (active.isEmpty() && submitted.isEmpty() && outbox.isEmpty()) {
            return 0; // idle: four loads (a queued collective is seen by the next poll, as it is queued first)
        }
        work = 0;
        CollOperation op;
        while ((op = submitted.poll()) != null) {
            start(op);
        }
        for (int i = 0; i < active.size(); ) {
            op = active.get(i);
            op.sendHeld = false;
            final boolean done = op.advance(this);
            if (!done && op.sendHeld) {
                i++; // a full path or the window: the next poll tries again
                continue;
            }
            op.awake = false;
            active.set(i, active.get(active.size() - 1));
            active.remove(active.size() - 1);
            if (done) {
                finish(op);
            }
        }
        work += outbox.sendNotices();
        work += outbox.sendControl();
        return work;
    }

    /** This rank closes its client: see {@link CollProbes#closing}. */
    @Override
    public void closing() {
        probes.closing(early);
    }

    private void start(CollOperation op) {
        final int n = op.team.size();
        // a flat tree (one step) for small data on small teams, else binomial (log2 n steps, each rank sends less)
        op.start(op.length <= flatBelowBytes && n <= flatMaxRanks ? Math.max(2, n) : 2);
        if (op.length >= inPlaceMin) {
            op.inPlaceAt = inPlaceAt(op);
        }
        started.put(op.key(), op);
        final CollFlow flow = op.team.flow;
        if (!flow.registered) {
            register(op.team);
        }
        flow.nextStart = op.sequence + 1;
        if (flow.askerCount() > 0) {
            answerAsks(op.team);
        }
        op.awake = true;
        active.add(op);
        work++;
        final ArrayList<CollEarlyPieces.Piece> before = early.remove(op.key());
        if (before != null) {
            takeEarly(op, before);
        }
    }

    private void register(Team team) {
        team.flow.registered = true;
        teams.put(team.id, team);
        if (!asksBefore.isEmpty()) {
            for (int r = 0; r < team.size(); r++) {
                final long key = (long) team.id << 32 | team.jobRank(r);
                final long known = asksBefore.remove(key);
                if (known != NONE && team.flow.asked(r, (int) known)) {
                    answer(team, r);
                }
            }
        }
    }

    void answerAsks(Team team) {
        for (int r = team.flow.takeAnswerable(); r >= 0; r = team.flow.takeAnswerable()) {
            answer(team, r);
        }
    }

    private void answer(Team team, int teamRank) {
        outbox.queueControl(team.id, team.jobRank(teamRank), CollArgs.PHASE_ANSWER, team.flow.nextStart);
    }

    /** Makes the next poll advance {@code op}, to which something came. */
    private void wake(CollOperation op) {
        if (!op.awake) {
            op.awake = true;
            active.add(op);
        }
    }

    /** Hands {@code op} the pieces that came before it started (out of {@link #start}, which stays small to inline). */
    private void takeEarly(CollOperation op, ArrayList<CollEarlyPieces.Piece> before) {
        for (int i = 0; i < before.size(); i++) {
            final CollEarlyPieces.Piece e = before.get(i);
            final int from = op.team.teamRankUnchecked(e.fromJob);
            if (CollProbes.startedThere(e.word, e.offset)) {
                op.team.flow.heard(from, op.sequence);
            }
            op.heard++;
            if (CollArgs.phase(e.word) == CollArgs.PHASE_FAILED) {
                op.failedElsewhere(from, e.offset);
            } else if (CollArgs.phase(e.word) == CollArgs.PHASE_PROBE) {
                op.agrees(this, from, e.word, e.total);
            } else {
                final MemorySegment to = op.accept(this, from, e.word, e.offset, e.total, e.length);
                if (to != null && e.length > 0) {
                    // a whole message becomes the child's buffer (the child's old one is kept for the next early
                    // piece): one copy from the network, not two
                    final MemorySegment replaced = e.length == op.length ? op.adopt(to, e.data) : null;
                    if (replaced != null) {
                        e.data = replaced;
                    } else {
                        MemorySegment.copy(e.data, 0, to, e.offset, e.length);
                    }
                }
            }
        }
        early.release(before);
    }

    /**
     * Where {@code op}'s source lies in this rank's segment, for a reduction of at least {@link #inPlaceMin} bytes
     * whose parent maps the segment and can read it there (one transfer between the cores instead of two, and none
     * while the source is unchanged); else -1.
     */
    private int inPlaceAt(CollOperation op) {
        if (op.length < inPlaceMin || (op.kind != CollOperation.REDUCE && op.kind != CollOperation.REDUCE_ALL)
            || !op.srcIsNative() || !client.hasSegment()) {
            return -1;
        }
        final MemorySegment mine = client.segment().memory();
        final long at = op.srcAddress() - mine.address();
        return at >= 0 && at <= mine.byteSize() - op.length && at <= Integer.MAX_VALUE ? (int) at : -1;
    }

    /** Job rank {@code rank}'s segment as this process maps it (cross-mapped conduits, once segments are attached). */
    MemorySegment peerSegment(int rank) {
        MemorySegment[] all = peerSegments;
        if (all == null) {
            all = new MemorySegment[client.size()];
            for (int r = 0; r < all.length; r++) {
                all[r] = CORE.conduit(client).peerSegment(r);
            }
            peerSegments = all;
        }
        return all[rank];
    }

    /** Ends {@code op}, failed or not: its late pieces are dropped from now on, as it is below its team's next. */
    private void finish(CollOperation op) {
        final Event event = op.event;
        final Throwable failure = op.failure();
        retire(op);
        CORE.completeSole(event, failure); // the delivery's holder alone completes a collective
    }

    /** Forgets a finished operation and keeps its object for reuse. */
    private void retire(CollOperation op) {
        work++;
        started.remove(op.key());
        op.team.flow.finished(op.sequence, CollArgs.word(op.kind, 0, op.root), op.length);
        recycle(op);
    }

    /** Keeps an operation object for reuse: for the delivery's holder while it has room, else for other threads. */
    private void recycle(CollOperation op) {
        op.clear();
        if (spareCount < SPARE) {
            spare[spareCount++] = op;
        } else {
            free.offer(op); // for threads that find the delivery held; dropped when the pool is full
        }
    }

    private void onPiece(Token token, Payload payload, Args a) {
        piece(token, payload, a.get(CollArgs.TEAM), a.get(CollArgs.SEQUENCE), a.get(CollArgs.WORD),
            a.get(CollArgs.OFFSET), a.get(CollArgs.TOTAL));
    }

    private void onWhole(Token token, Payload payload, Args a) {
        piece(token, payload, a.get(CollArgs.TEAM), a.get(CollArgs.SEQUENCE), a.get(CollArgs.WORD), 0,
            (int) payload.length()); // a Medium payload, below 2^31
    }

    private void piece(Token token, Payload payload, int team, int sequence, int word, int offset, int total) {
        if (CollArgs.phase(word) >= CollArgs.PHASE_ASK && CollArgs.kind(word) == 0) {
            onFlow(team, token.sourceRank(), CollArgs.phase(word), sequence);
            return;
        }
        final long key = (long) team << 32 | (sequence & 0xFFFF_FFFFL);
        final Team t = team(team);
        if (t == null || sequence - t.flow.nextStart >= 0) {
            // not started here (a team this rank has started nothing on may not even be made yet): kept until it is
            if (CollArgs.phase(word) == CollArgs.PHASE_PROBE) {
                if (!hooked) {
                    hook(); // so that this rank's close answers the probe kept here (closing)
                }
                if (CORE.closing(client)) {
                    probes.refuseAsClosing(team, sequence, word, token.sourceRank());
                    return;
                }
            }
            early.keep(key, token.sourceRank(), word, offset, total, payload);
            return;
        }
        final CollOperation op = started.get(key);
        if (op == null) { // below the team's next and not running: finished here
            if (CollArgs.phase(word) == CollArgs.PHASE_PROBE) {
                probes.answerFinished(t, sequence, word, total, token.sourceRank());
            }
            return;
        }
        final int from = op.team.teamRankUnchecked(token.sourceRank());
        if (CollProbes.startedThere(word, offset)) {
            op.team.flow.heard(from, sequence);
        }
        op.heard++;
        wake(op);
        if (CollArgs.phase(word) == CollArgs.PHASE_FAILED) {
            op.failedElsewhere(from, offset);
            return;
        }
        if (CollArgs.phase(word) == CollArgs.PHASE_PROBE) {
            op.agrees(this, from, word, total);
            return;
        }
        final MemorySegment to = op.accept(this, from, word, offset, total, payload.length());
        if (to != null && payload.length() > 0) {
            payload.copyTo(0, to, offset, payload.length());
        }
    }

    /** An ask or an answer of {@link CollFlow} from job rank {@code fromJob}. */
    private void onFlow(int teamId, int fromJob, int phase, int sequence) {
        final Team team = team(teamId);
        if (phase == CollArgs.PHASE_ANSWER) {
            if (team != null) { // it asked, so it has started one
                team.flow.answered(team.teamRankUnchecked(fromJob), sequence);
            }
        } else if (team == null) {
            // asked before this rank started any collective on the team (or made it): answered once it does
            asksBefore.put((long) teamId << 32 | fromJob, sequence);
        } else if (team.flow.asked(team.teamRankUnchecked(fromJob), sequence)) {
            answer(team, team.teamRankUnchecked(fromJob));
        }
    }

    /**
     * The team of id {@code id} this rank has started a collective on, or null. Collectives start in sequence order on
     * each team, so one below its {@link CollFlow#nextStart} has started here, and one that is not running has
     * finished (wrap-safe comparisons).
     */
    private Team team(int id) {
        final Team last = lastTeam;
        if (last != null && last.id == id) {
            return last;
        }
        final Team t = teams.get(id);
        if (t != null) {
            lastTeam = t;
        }
        return t;
    }

    /** Tries to send one piece of {@code op} to its team's rank {@code to}; false if the path is full. */
    boolean trySend(CollOperation op, int to, int phase, int offset, MemorySegment data, int bytes) {
        final CollFlow flow = op.team.flow;
        final int ahead = flow.ahead(to, op.sequence);
        if (ahead >= CollFlow.HALF) {
            if (flow.shouldAsk(to)) {
                outbox.queueControl(op.team.id, op.team.jobRank(to), CollArgs.PHASE_ASK, flow.knownNext(to));
            }
            if (ahead >= CollFlow.WINDOW) {
                op.sendHeld = true;
                return false; // held until the member answers: see CollFlow
            }
        }
        outbox.setArgs(op.team.id, op.sequence, CollArgs.word(op.kind, phase, op.root), offset, op.length);
        if (outbox.send(op.team.jobRank(to), data, offset, bytes) != Am.OK) {
            op.sendHeld = true;
            return false;
        }
        work++;
        return true;
    }

    /** The largest piece to {@code jobRank}. */
    int chunk(int jobRank) {
        return outbox.chunk(jobRank);
    }

    /** Tells every other member of {@code op}'s team that it failed here, so that none waits for this rank. */
    void notifyFailure(CollOperation op, int reason) {
        outbox.queueToOthers(op, CollArgs.word(op.kind, CollArgs.PHASE_FAILED, op.root), reason, 0);
    }

    /**
     * For tests: what this engine holds (operations started, collectives with early pieces, operations in flight,
     * failure notices to send, and the count of what needs progress), read under the client's delivery; null where
     * another thread holds it (try again).
     */
    Map<String, Integer> held() {
        if (!CORE.tryHoldDelivery(client)) {
            return null;
        }
        try {
            final Map<String, Integer> held = new LinkedHashMap<>();
            held.put("started", started.size());
            held.put("early", early.size());
            held.put("active", active.size());
            held.put("notices", outbox.notices());
            held.put("queued", submitted.size());
            held.put("flow messages", outbox.controlMessages());
            return held;
        } finally {
            CORE.releaseDelivery(client);
        }
    }
}
