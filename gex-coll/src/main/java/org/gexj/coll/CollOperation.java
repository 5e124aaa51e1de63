package org.gexj.coll;

import org.gexj.Event;
import org.gexj.coll.wire.CollArgs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One collective in flight on this rank: its arguments, what has arrived for it and how far it has gone. A barrier
 * is a dissemination barrier (round k: send to rank + 2^k, hear from rank - 2^k, mod n). The others walk a
 * {@link TreeShape}: a reduction goes up (each rank waits for its children's values, combines them with its own in
 * the children's order, and sends the result to its parent), a broadcast comes down (each rank waits for its parent's
 * data, then sends it on to its children); reduce-to-all goes up to team rank 0 and comes down again, so every rank
 * gets the same bits.
 *
 * <p>Touched only by the thread that holds the client's delivery: {@link CollEngine}'s handler and progress.
 */
final class CollOperation {
    static final int BARRIER = 1;
    static final int BROADCAST = 2;
    static final int REDUCE = 3;
    static final int REDUCE_ALL = 4;
    private static final String[] NAMES = {"?", "barrier", "broadcast", "reduce-to-one", "reduce-to-all"};

    static final int MISMATCHED_KIND = 1;
    static final int MISMATCHED_ROOT = 2;
    static final int MISMATCHED_LENGTH = 3;
    static final int COMBINE_FAILED = 4;
    /** The member closed its client without starting the collective ({@link CollEngine#closing}). */
    static final int CLOSED_THERE = 5;
    /** With a reason: the member had finished the collective when this rank's probe found that their calls differ. */
    static final int FINISHED_THERE = 0x100;

    private static final int UP = 0;
    private static final int DOWN = 1;
    private static final int DONE = 2;
    /** A leaf whose value its parent reads in place waits for the parent's answer that it has (reduce-to-one). */
    private static final int READ_WAIT = 3;
    /** A non-commutative reduce-to-one's tree top (team rank 0) sends the result to the root. */
    private static final int FORWARD = 4;
    /** A non-commutative reduce-to-one's root, not the tree's top, waits for the result from team rank 0. */
    private static final int AWAIT = 5;

    /** {@link #foldEarly}'s and {@link #copyEarly}'s answers. */
    static final int NOT_EARLY = 0;
    static final int DONE_EARLY = 1;
    static final int FAILED_EARLY = 2;

    /**
     * No bytes: native, since a first heap segment in the process loads the JDK's heap segment classes, which
     * invalidates every compiled method that copies segments (the caller's RMA loops, compiled before its first
     * collective, went back to the interpreter).
     */
    private static final MemorySegment NOTHING = MemorySegment.NULL;

    Team team;
    int kind;
    int sequence;
    Event event;
    int root;
    /** Bytes of every message of this collective: the data, or 0 for a barrier. */
    int length;
    /** In the engine's list of operations its polls advance ({@link CollEngine}: the delivery thread's). */
    boolean awake;
    /** The last advance stopped at a send that a full path or the window held, not for a piece to come. */
    boolean sendHeld;
    /** Pieces and probes that came for it, counted for {@link CollEngine}'s looks for stalled collectives. */
    int heard;
    /** {@link #heard} at the engine's last look, and whether it has looked. */
    int heardAtLook;
    boolean looked;
    /** Its members have been asked to compare their calls ({@link CollArgs#PHASE_PROBE}): once is enough. */
    boolean probed;
    private MemorySegment dst;
    private MemorySegment src;
    private ReduceFunction combine;
    private long elementSize;
    /**
     * A non-commutative operator ({@code GEX_OP_USER_NC}): the tree is rooted at team rank 0, where every subtree is a
     * run of consecutive ranks, and each node folds its own value and its children's in rank order.
     */
    private boolean inRankOrder;
    /** The team rank this rank sends the result to (FORWARD), or -1. */
    private int resultTo;
    /** The team rank this rank takes the result from (AWAIT), or -1. */
    private int resultFrom;

    private int stage;
    private Throwable failure;
    // a barrier's
    private int rounds;
    private int round;
    private boolean roundSent;
    private int[] arrivals = new int[0];
    // a tree's: the children's state has room for the most children this operation has had, reused when pooled
    private TreeShape up;
    private TreeShape down;
    private MemorySegment[] childData = new MemorySegment[0];
    /** The children's values for one fold, in their order: cleared after it. */
    private MemorySegment[] childValue = new MemorySegment[0];
    private int[] childBytes = new int[0];
    private boolean[] childSeen = new boolean[0];
    private int parentBytes;
    private boolean parentSeen;
    private MemorySegment value;
    private MemorySegment accumulator;
    // the send in progress: to the target at sendIndex among a stage's targets, from sendOffset
    private int sendIndex;
    private int sendOffset;
    // in place (cross-mapped segments): where this rank's source lies in its segment (-1: it travels as data), where
    // each child's value lies in the child's segment (-1: it came as data), and views of those, reused while the same
    int inPlaceAt = -1;
    private int[] childAt = new int[0];
    private MemorySegment[] childView = new MemorySegment[0];
    private int[] childViewPeer = new int[0];
    private int[] childViewAt = new int[0];
    private boolean upSent;
    private boolean readSeen;
    private int readsSent;
    /** This rank folded its children's values into its result before it started ({@link #foldedToFirst}). */
    private boolean folded;

    /**
     * Takes a collective's arguments and resets how far it has gone (a pooled operation is reused); the sequence is
     * set when it is queued ({@link Team#issue}), the state its tree shapes in {@link #start}.
     */
    CollOperation init(Team team, int kind, int root, int length, MemorySegment dst, MemorySegment src,
                       ReduceFunction combine, long elementSize, Event event) {
        this.team = team;
        this.kind = kind;
        this.root = root;
        this.length = length;
        this.dst = dst;
        this.src = src;
        this.combine = combine;
        this.elementSize = elementSize;
        this.inRankOrder = combine != null && !combine.commutative();
        this.event = event;
        failure = null;
        heard = 0;
        looked = false;
        probed = false;
        round = 0;
        roundSent = false;
        parentBytes = 0;
        parentSeen = false;
        sendIndex = 0;
        sendOffset = 0;
        inPlaceAt = -1;
        upSent = false;
        readSeen = false;
        readsSent = 0;
        folded = false;
        return this;
    }

    /**
     * Lets go of the caller's memory and event once finished, so that a pooled operation holds none ({@code value} is
     * the source, the result or the accumulator: reset here, before any reuse).
     */
    void clear() {
        team = null;
        event = null;
        dst = null;
        src = null;
        combine = null;
        value = null;
    }

    MemorySegment src() {
        return src;
    }

    /** The team rank its tree is rooted at: team rank 0 for a non-commutative operator, else the root. */
    int treeRoot() {
        return inRankOrder ? 0 : root;
    }

    boolean srcIsNative() {
        return src != null && src.isNative();
    }

    long srcAddress() {
        return src.address();
    }

    long key() {
        return (long) team.id << 32 | (sequence & 0xFFFF_FFFFL);
    }

    /** Sizes the state, on the delivery thread when the collective starts; {@code radix} shapes its tree. */
    void start(int radix) {
        final boolean goesUp = kind == REDUCE || kind == REDUCE_ALL;
        final TreeShape shape = kind == BARRIER ? null : team.shape(inRankOrder ? 0 : root, radix);
        final boolean forwarded = inRankOrder && kind == REDUCE && root != 0;
        resultTo = forwarded && team.rank() == 0 ? root : -1;
        resultFrom = forwarded && team.rank() == root ? 0 : -1;
        up = goesUp ? shape : null;
        down = kind == BROADCAST || kind == REDUCE_ALL ? shape : null;
        stage = folded ? DOWN : goesUp ? UP : down != null ? DOWN : DONE; // a barrier has no stages
        if (kind == BARRIER) {
            rounds = 32 - Integer.numberOfLeadingZeros(team.size() - 1);
            if (arrivals.length < rounds) {
                arrivals = new int[rounds];
            }
            java.util.Arrays.fill(arrivals, 0, rounds, 0);
        }
        if (goesUp) {
            final int c = up.children.length;
            if (childData.length < c) {
                childData = java.util.Arrays.copyOf(childData, c);
                childBytes = new int[c];
                childSeen = new boolean[c];
                childAt = new int[c];
                childView = java.util.Arrays.copyOf(childView, c);
                childViewPeer = java.util.Arrays.copyOf(childViewPeer, c);
                childViewAt = java.util.Arrays.copyOf(childViewAt, c);
            }
            for (int i = 0; i < c; i++) {
                childData[i] = room(childData[i], length);
                childBytes[i] = 0;
                childSeen[i] = false;
                childAt[i] = -1;
            }
        }
    }

    /**
     * Takes {@code whole}, a whole message that came before this collective started, as the buffer of the child whose
     * buffer {@code to} is ({@link #accept}'s answer for it), instead of a second copy.
     *
     * @return the buffer it replaced, for the caller to reuse; null where {@code to} is no child's (then copy)
     */
    MemorySegment adopt(MemorySegment to, MemorySegment whole) {
        if (up != null) {
            for (int i = 0; i < up.children.length; i++) {
                if (childData[i] == to) {
                    childData[i] = whole;
                    return to;
                }
            }
        }
        return null;
    }

    /**
     * {@code buffer} if it holds {@code bytes}, else a new one that does: off the heap, as segments and most users'
     * buffers are, so that a reduction's loop sees one kind of segment (the GC frees it with its last holder). The
     * engine's early pieces use it too, so that their buffers and the children's can be swapped.
     */
    static MemorySegment room(MemorySegment buffer, int bytes) {
        return buffer != null && buffer.byteSize() >= bytes ? buffer
            : Arena.ofAuto().allocate(Math.max(bytes, 64), 8);
    }

    String name() {
        return NAMES[kind];
    }

    Throwable failure() {
        return failure;
    }

    /** Goes as far as what has arrived and the paths allow. @return true once complete or failed */
    boolean advance(CollEngine engine) {
        if (failure != null) {
            return true;
        }
        try {
            return kind == BARRIER ? advanceBarrier(engine) : advanceTree(engine);
        } catch (RuntimeException e) {
            combineFailed(engine, e);
            return true;
        }
    }

    /** A user's combining function threw: this rank cannot go on, and the others must not wait for it. */
    private void combineFailed(CollEngine engine, RuntimeException e) {
        fail(new IllegalStateException(name() + " #" + sequence + " on " + team + ": the reduction function threw " + e,
            e));
        engine.notifyFailure(this, COMBINE_FAILED);
    }

    private boolean advanceBarrier(CollEngine engine) {
        final int n = team.size();
        while (round < rounds) {
            if (!roundSent) {
                if (!engine.trySend(this, (team.rank() + (1 << round)) % n, round, 0, NOTHING, 0)) {
                    return false;
                }
                roundSent = true;
            }
            if (arrivals[round] == 0) {
                return false;
            }
            round++;
            roundSent = false;
        }
        return true;
    }

    private boolean advanceTree(CollEngine engine) {
        if (stage == UP) {
            if (value == null) {
                for (int i = 0; i < up.children.length; i++) {
                    if (!childSeen[i] || childBytes[i] != length) {
                        return false;
                    }
                }
                // the root combines straight into its result; the others into a buffer of their own for the parent
                value = fold(engine, up.parent < 0 && resultTo < 0 ? dst : null);
            }
            // a reduce-to-one's children read in place wait for this; a reduce-to-all's for the data coming down
            while (kind == REDUCE && readsSent < up.children.length) {
                if (childAt[readsSent] >= 0
                    && !engine.trySend(this, up.children[readsSent], CollArgs.PHASE_READ, 0, NOTHING, 0)) {
                    return false;
                }
                readsSent++;
            }
            if (up.parent >= 0) {
                if (inPlaceAt >= 0 && up.children.length == 0) {
                    if (!upSent && !engine.trySend(this, up.parent, CollArgs.PHASE_UP_AT, inPlaceAt, NOTHING, 0)) {
                        return false;
                    }
                    upSent = true;
                    stage = kind == REDUCE_ALL ? DOWN : READ_WAIT;
                } else if (!sendAll(engine, up.parent, CollArgs.PHASE_UP, value)) {
                    return false;
                }
            }
            if (stage == UP) {
                stage = kind == REDUCE_ALL ? DOWN : afterUp();
            }
        }
        if (stage == READ_WAIT) {
            if (!readSeen) {
                return false; // the source may be reused only once the parent has read it
            }
            stage = afterUp();
        }
        if (stage == FORWARD) {
            if (!sendAll(engine, resultTo, CollArgs.PHASE_DOWN, value)) {
                return false;
            }
            stage = DONE;
        }
        if (stage == AWAIT) {
            if (!parentSeen || parentBytes != length) {
                return false;
            }
            stage = DONE;
        }
        if (stage == DOWN) {
            if (down.parent >= 0) {
                if (!parentSeen || parentBytes != length) {
                    return false;
                }
            } else if (kind == BROADCAST && sendIndex == 0 && sendOffset == 0) {
                MemorySegment.copy(src, 0, dst, 0, length);
            }
            while (sendIndex < down.children.length) {
                if (!sendAll(engine, down.children[sendIndex], CollArgs.PHASE_DOWN, dst)) {
                    return false;
                }
                sendIndex++;
            }
            stage = DONE;
        }
        return true;
    }

    /** Where a reduce-to-one goes once this rank's value is up. */
    private int afterUp() {
        return resultTo >= 0 ? FORWARD : resultFrom >= 0 ? AWAIT : DONE;
    }

    /**
     * This rank's value combined with its children's, in the children's order, in {@code into} (the root's result), or
     * else in the accumulator, or, with no children, the source itself.
     */
    private MemorySegment fold(CollEngine engine, MemorySegment into) {
        final int c = up.children.length;
        if (c == 0 && into == null) {
            return src;
        }
        final MemorySegment acc;
        if (into != null) {
            acc = into;
        } else {
            accumulator = room(accumulator, length);
            acc = accumulator;
        }
        final MemorySegment[] values = childValues(c);
        for (int i = 0; i < c; i++) {
            values[i] = child(engine, i);
        }
        combineInto(acc, values, c);
        return acc;
    }

    /**
     * Combines this rank's source and {@code values[0, c)}, its children's values in the children's order, into
     * {@code acc}. In rank order, the children (consecutive runs of ranks above this one, in increasing order) are
     * folded from the last, as {@code inOut = in op inOut} takes the lower ranks' value as {@code in}:
     * {@code v op (c1 op (c2 op ... ck))}.
     */
    private void combineInto(MemorySegment acc, MemorySegment[] values, int c) {
        final long count = length / elementSize;
        try {
            if (inRankOrder && c > 0) {
                MemorySegment.copy(values[c - 1], 0, acc, 0, length);
                for (int i = c - 2; i >= 0; i--) {
                    combine.combine(values[i], acc, count);
                }
                combine.combine(src, acc, count);
            } else {
                MemorySegment.copy(src, 0, acc, 0, length);
                for (int i = 0; i < c; i++) {
                    combine.combine(values[i], acc, count);
                }
            }
        } finally {
            java.util.Arrays.fill(values, 0, c, null); // no reference to a child's buffer outlives the fold
        }
    }

    private MemorySegment[] childValues(int c) {
        if (childValue.length < c) {
            childValue = new MemorySegment[c];
        }
        return childValue;
    }

    /**
     * A flat reduce-to-one's root whose children's values all came before it started, each whole in one piece of
     * {@code pieces} (one per child, in any order): combines them into the result as {@link #advance} would, without
     * starting. Anything else (a piece in parts, a probe, a failure notice, a call that differs) is left for
     * {@link CollEngine#start}, which reports it.
     *
     * @param children the flat tree's children of this root, in its combining order
     * @return {@link #NOT_EARLY} where the pieces are not exactly that (nothing touched), else
     *         {@link #DONE_EARLY}, or {@link #FAILED_EARLY} where the reduction function threw (the failure is
     *         set and the other members told)
     */
    int foldEarly(CollEngine engine, int[] children, java.util.List<CollEarlyPieces.Piece> pieces) {
        final int c = children.length;
        if (pieces.size() != c) {
            return NOT_EARLY;
        }
        final int word = CollArgs.word(kind, CollArgs.PHASE_UP, root);
        final MemorySegment[] values = childValues(c);
        for (int i = 0; i < c; i++) {
            MemorySegment value = null;
            for (int j = 0; j < c; j++) {
                final CollEarlyPieces.Piece p = pieces.get(j);
                if (team.teamRankUnchecked(p.fromJob) == children[i]) {
                    if (p.word == word && p.offset == 0 && p.total == length && p.length == length) {
                        value = p.data;
                    }
                    break;
                }
            }
            if (value == null) {
                java.util.Arrays.fill(values, 0, i, null);
                return NOT_EARLY;
            }
            values[i] = value;
        }
        try {
            combineInto(dst, values, c);
            return DONE_EARLY;
        } catch (RuntimeException e) {
            combineFailed(engine, e);
            return FAILED_EARLY;
        }
    }

    /**
     * A flat broadcast's leaf whose root's data came before it started, whole in the one piece of {@code pieces}:
     * copies it into the result, as {@link #advance} would, without starting.
     *
     * @return {@link #DONE_EARLY}, or {@link #NOT_EARLY} where the pieces are not exactly that (nothing touched)
     */
    int copyEarly(java.util.List<CollEarlyPieces.Piece> pieces) {
        if (pieces.size() != 1) {
            return NOT_EARLY;
        }
        final CollEarlyPieces.Piece p = pieces.get(0);
        if (team.teamRankUnchecked(p.fromJob) != root || p.word != CollArgs.word(kind, CollArgs.PHASE_DOWN, root)
            || p.offset != 0 || p.total != length || p.length != length) {
            return NOT_EARLY;
        }
        if (length > 0) {
            MemorySegment.copy(p.data, 0, dst, 0, length);
        }
        return DONE_EARLY;
    }

    /**
     * A flat broadcast's root that sent its data to its first {@code children} children itself (and copied it into
     * its result): the operation's sends go on from the next.
     */
    void sentToFirst(int children) {
        sendIndex = children;
    }

    /**
     * A flat reduce-to-all's root that folded its children's values into its result ({@link #foldEarly}) and sent it
     * to its first {@code children} children itself: the operation starts at sending down, from the next.
     */
    void foldedToFirst(int children) {
        folded = true;
        sendIndex = children;
    }

    MemorySegment dst() {
        return dst;
    }

    private MemorySegment child(CollEngine engine, int i) {
        return childAt[i] >= 0 ? view(engine, i) : childData[i];
    }

    /** Child {@code i}'s value in its segment, as this process maps it; the view is kept for the next collective. */
    private MemorySegment view(CollEngine engine, int i) {
        final int peer = team.jobRank(up.children[i]);
        MemorySegment v = childView[i];
        if (v == null || childViewPeer[i] != peer || childViewAt[i] != childAt[i] || v.byteSize() != length) {
            v = engine.peerSegment(peer).asSlice(childAt[i], length);
            childView[i] = v;
            childViewPeer[i] = peer;
            childViewAt[i] = childAt[i];
        }
        return v;
    }

    /** Sends all of {@code data} to {@code to}, in pieces, from where the last try stopped. */
    private boolean sendAll(CollEngine engine, int to, int phase, MemorySegment data) {
        final int chunk = engine.chunk(team.jobRank(to));
        do {
            final int piece = Math.min(chunk, length - sendOffset);
            if (!engine.trySend(this, to, phase, sendOffset, data, piece)) {
                return false;
            }
            sendOffset += piece;
        } while (sendOffset < length);
        sendOffset = 0;
        return true;
    }

    /**
     * Where a piece from team rank {@code from} goes, counted as arrived; null if it contradicts this rank's call
     * (then this collective has failed, with a message naming both).
     */
    MemorySegment accept(CollEngine engine, int from, int word, int offset, int total, long bytes) {
        if (!agrees(engine, from, word, total)) {
            return null;
        }
        final int phase = CollArgs.phase(word);
        if (phase == CollArgs.PHASE_UP_AT && up != null) {
            return acceptInPlace(engine, from, offset);
        }
        if (offset < 0 || offset + bytes > length) {
            return mismatch(engine, MISMATCHED_LENGTH, "team rank " + from + " sent bytes " + offset + "-"
                + (offset + bytes) + " of a message this rank expects " + length + " bytes of");
        }
        if (kind == BARRIER) {
            if (phase < rounds && from == Math.floorMod(team.rank() - (1 << phase), team.size())) {
                arrivals[phase]++;
                return NOTHING;
            }
        } else if (phase == CollArgs.PHASE_UP && up != null) {
            for (int i = 0; i < up.children.length; i++) {
                if (up.children[i] == from) {
                    childSeen[i] = true;
                    childBytes[i] += (int) bytes;
                    return childData[i];
                }
            }
        } else if (phase == CollArgs.PHASE_READ && up != null && from == up.parent && upSent) {
            readSeen = true;
            return NOTHING;
        } else if (phase == CollArgs.PHASE_DOWN && (down != null && from == down.parent || from == resultFrom)) {
            parentSeen = true;
            parentBytes += (int) bytes;
            return dst;
        }
        return mismatch(engine, MISMATCHED_ROOT, "team rank " + from + " sent phase " + phase + " data this rank's"
            + " tree does not expect from it (the team's collectives are out of step, or its members' roots differ)");
    }

    /**
     * Whether team rank {@code from}'s call, as its piece or probe describes it ({@code word}, {@code total}), is this
     * rank's; where it is not, this collective fails, with a message naming both.
     */
    boolean agrees(CollEngine engine, int from, int word, int total) {
        if (failure != null) {
            return false;
        }
        final int theirKind = CollArgs.kind(word);
        if (theirKind != kind) {
            mismatch(engine, MISMATCHED_KIND, "team rank " + from + " sent its " + NAMES[Math.min(theirKind, 4)]
                + " where this rank called " + name());
            return false;
        }
        if (CollArgs.root(word) != root) {
            mismatch(engine, MISMATCHED_ROOT, "team rank " + from + " called it with root " + CollArgs.root(word)
                + ", this rank with root " + root);
            return false;
        }
        if (total != length) {
            mismatch(engine, MISMATCHED_LENGTH, "team rank " + from + " sent " + total + " bytes where this rank"
                + " expects " + length);
            return false;
        }
        return true;
    }

    /** A child's value left at {@code at} in its segment, read in place at the fold. */
    private MemorySegment acceptInPlace(CollEngine engine, int from, int at) {
        for (int i = 0; i < up.children.length; i++) {
            if (up.children[i] == from) {
                if (at < 0 || at > engine.peerSegment(team.jobRank(from)).byteSize() - length) {
                    return mismatch(engine, MISMATCHED_LENGTH, "team rank " + from + " left its " + length
                        + " bytes at offset " + at + ", outside its segment");
                }
                childSeen[i] = true;
                childBytes[i] = length;
                childAt[i] = at;
                return NOTHING;
            }
        }
        return mismatch(engine, MISMATCHED_ROOT, "team rank " + from + " left a value for this rank, which its tree"
            + " does not expect from it (the team's collectives are out of step, or its members' roots differ)");
    }

    private MemorySegment mismatch(CollEngine engine, int reason, String detail) {
        fail(new IllegalArgumentException(name() + " #" + sequence + " on " + team + ": " + detail
            + "; a team's collectives must be issued in the same order, with the same root and size, on every member"));
        engine.notifyFailure(this, reason);
        return null;
    }

    /**
     * A member reported that it failed this collective, or ({@code reason} with {@link #FINISHED_THERE}) that it
     * finished it with a call that differs from this rank's, as this rank's probe found.
     */
    void failedElsewhere(int from, int reason) {
        if (failure == null) {
            final String what = reason == CLOSED_THERE ? " closed its client (Client.close) without starting it"
                : ((reason & FINISHED_THERE) != 0 ? " finished it with another call" : " failed it") + " ("
                + reasonText(reason & ~FINISHED_THERE) + ")";
            fail(new IllegalStateException(name() + " #" + sequence + " on " + team + ": team rank " + from + what
                + ", so it cannot complete here"));
        }
    }

    private void fail(Throwable why) {
        failure = why;
    }

    static String reasonText(int reason) {
        return switch (reason) {
            case MISMATCHED_KIND -> "the members called different collectives";
            case MISMATCHED_ROOT -> "the members gave different roots";
            case MISMATCHED_LENGTH -> "the members gave different sizes";
            case COMBINE_FAILED -> "its reduction function threw";
            default -> "reason " + reason;
        };
    }
}
