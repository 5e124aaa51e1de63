package org.gexj.coll;

import org.gexj.coll.wire.CollArgs;

/**
 * How far this rank's collectives on one team may run ahead of each member, and what the members asked of it: the
 * bound on what a receiver keeps for collectives it has not started yet.
 *
 * <p>A piece of collective {@code s} goes to a member only while {@code s} is below {@link #WINDOW} past the member's
 * next collective to start, as this rank last learnt it. Every piece a member sends tells that it has started the
 * piece's collective, so members in step (barriers, reduce-to-all, in-place reductions) learn it for free. Where the
 * traffic is one way (a reduce-to-one's leaves, a broadcast's root), the sender asks once it is half a window ahead of
 * what it knows, with what it knows; the member answers with its next collective once that has gone half a window
 * past, so that each exchange lets at least half a window through. A sender that waits for an answer holds its
 * piece, as a full path does, and polls on.
 *
 * <p>Without it, a reduce-to-one's leaf that runs ahead of its root (nothing in the collective makes it wait) left
 * one kept piece per collective at the root: 29 000 of them in testcollperf's timed loops, each with its own buffer.
 *
 * <p>GASNet-EX allows the wait: collectives issued in an order that would not deadlock as blocking barriers, as its
 * rules require, do not deadlock here. A blocked piece's collective has a sequence; once the member has started that
 * collective, its next is past the piece's sequence, at least half a window past what the sender had asked with, and
 * the member answers.
 *
 * <p>Touched only by the thread that holds the client's delivery ({@link CollEngine}).
 */
final class CollFlow {
    /** Collectives of a team a rank runs ahead of a member, at most. */
    static final int WINDOW = 256;
    static final int HALF = WINDOW / 2;
    /** Collectives finished here whose calls are remembered, for members' probes ({@link #finished}). */
    static final int REMEMBERED = 2 * WINDOW;

    /** The sequence of the next collective this rank will start on the team; sequences compare wrap-safe. */
    int nextStart;
    /** In the engine's map of teams by id: this rank has started a collective on the team. */
    boolean registered;
    /** By team rank: the member's next collective to start, as this rank last learnt it. */
    private final int[] knownNext;
    /** By team rank: an ask to the member is unanswered. */
    private final boolean[] asking;
    /** By team rank: what the member knew of this rank when it asked ({@link #asked}); valid where asked. */
    private final int[] askedWith;
    private final boolean[] asked;
    /** The members whose asks wait for an answer, in {@code askers[0, askerCount)}. */
    private final int[] askers;
    private int askerCount;
    /**
     * The last {@link #REMEMBERED} collectives finished here, by sequence modulo their number: the sequence, its kind
     * and root as a message's word holds them (phase 0), and its size.
     */
    private final int[] finishedSequence = new int[REMEMBERED];
    private final int[] finishedWord = new int[REMEMBERED];
    private final int[] finishedLength = new int[REMEMBERED];

    CollFlow(int size) {
        knownNext = new int[size];
        asking = new boolean[size];
        askedWith = new int[size];
        asked = new boolean[size];
        askers = new int[size];
    }

    /** How many collectives {@code sequence} is past team rank {@code to}'s next, as far as this rank knows. */
    int ahead(int to, int sequence) {
        return sequence - knownNext[to];
    }

    /** Whether to ask team rank {@code to} now, as none is unanswered; the ask counts as sent. */
    boolean shouldAsk(int to) {
        if (asking[to]) {
            return false;
        }
        asking[to] = true;
        return true;
    }

    int knownNext(int to) {
        return knownNext[to];
    }

    /** Team rank {@code from} has started collective {@code sequence} (it sent a piece of it). */
    void heard(int from, int sequence) {
        if (sequence + 1 - knownNext[from] > 0) {
            knownNext[from] = sequence + 1;
        }
    }

    /** Team rank {@code from} answered: its next collective to start is {@code next}. */
    void answered(int from, int next) {
        if (next - knownNext[from] > 0) {
            knownNext[from] = next;
        }
        asking[from] = false;
    }

    /**
     * Team rank {@code from} asked, knowing {@code known} of this rank's next collective.
     *
     * @return true if it can be answered now; else it is kept for {@link #answerable}
     */
    boolean asked(int from, int known) {
        if (canAnswer(known)) {
            return true;
        }
        if (!asked[from]) {
            asked[from] = true;
            askers[askerCount++] = from;
        }
        askedWith[from] = known;
        return false;
    }

    private boolean canAnswer(int known) {
        return nextStart - known >= HALF;
    }

    int askerCount() {
        return askerCount;
    }

    /**
     * The next kept ask that can be answered now (it is forgotten), or -1; call after {@link #nextStart} moved.
     */
    int takeAnswerable() {
        for (int i = 0; i < askerCount; i++) {
            final int from = askers[i];
            if (canAnswer(askedWith[from])) {
                askers[i] = askers[--askerCount];
                asked[from] = false;
                return from;
            }
        }
        return -1;
    }

    /** Remembers the call of collective {@code sequence}, finished here (failed or not), for {@link #finished}. */
    void finished(int sequence, int word, int length) {
        final int slot = sequence & (REMEMBERED - 1);
        finishedSequence[slot] = sequence;
        finishedWord[slot] = word;
        finishedLength[slot] = length;
    }

    /**
     * How collective {@code sequence}, finished here, differs from a member's call of it ({@code word}, {@code
     * length}): a {@code CollOperation.MISMATCHED_*} reason, or 0 where it agrees or is no longer remembered.
     */
    int finishedDifferently(int sequence, int word, int length) {
        final int slot = sequence & (REMEMBERED - 1);
        if (finishedWord[slot] == 0 || finishedSequence[slot] != sequence) { // 0: nothing kept (kinds start at 1)
            return 0;
        }
        final int mine = finishedWord[slot];
        if (CollArgs.kind(mine) != CollArgs.kind(word)) {
            return CollOperation.MISMATCHED_KIND;
        }
        if (CollArgs.root(mine) != CollArgs.root(word)) {
            return CollOperation.MISMATCHED_ROOT;
        }
        return finishedLength[slot] != length ? CollOperation.MISMATCHED_LENGTH : 0;
    }
}
