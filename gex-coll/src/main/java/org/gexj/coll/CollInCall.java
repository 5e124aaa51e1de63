package org.gexj.coll;

import org.gexj.Event;
import org.gexj.am.Am;
import org.gexj.coll.wire.CollArgs;
import org.gexj.internal.CoreAccess;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;

/**
 * The collectives a caller's {@link CollEngine#submit} finishes itself, with no operation started, kept by key or put
 * in the list the polls advance: a flat tree's member whose part is one piece to send (a reduce-to-one's leaf, a
 * broadcast's root) where the window and the path let it go now, or whose part came whole before its call (a
 * reduce-to-one's root, a broadcast's leaf, a reduce-to-all's root, which then sends the result down). Such a
 * collective is done at return, as GASNet-EX lets an operation be (its event invalid). Anything unusual returns null,
 * and the caller takes the operation's way, which handles and reports it.
 *
 * <p>Threads: the holder of the client's delivery, as {@link CollEngine}.
 */
final class CollInCall {
    private static final CoreAccess CORE = CoreAccess.get();

    private final CollEngine engine;
    private final CollOutbox outbox;
    private final CollEarlyPieces early;
    private final int flatBelowBytes;
    private final int flatMaxRanks;
    /** {@link CollEngine}'s least reduction read in place; {@code Integer.MAX_VALUE} where none is. */
    private final int inPlaceMin;

    CollInCall(CollEngine engine, CollOutbox outbox, CollEarlyPieces early, int flatBelowBytes, int flatMaxRanks,
               int inPlaceMin) {
        this.engine = engine;
        this.outbox = outbox;
        this.early = early;
        this.flatBelowBytes = flatBelowBytes;
        this.flatMaxRanks = flatMaxRanks;
        this.inPlaceMin = inPlaceMin;
    }

    /**
     * A reduce-to-one's leaf in a flat tree (every member but the tree's root) has only its source to send, in one
     * piece: where the window and the path let it go now, it goes, and the collective is done here at return, as
     * GASNet-EX lets an operation be (its event invalid). No operation runs and no event is taken, consumed and given
     * back: three atomic instructions fewer, the first of which waited for the send's stores.
     *
     * <p>Anything unusual takes the operation's way: the team's first collective here, members' asks to answer,
     * pieces kept for this collective (a probe or a failure notice that came before it started), a full
     * window (the operation waits), the source read in place, a full path. Past half the window it asks, as
     * {@link CollEngine#trySend} does.
     */
    private boolean sentAsLeaf(CollOperation op) {
        final Team team = op.team;
        final int treeRoot = op.treeRoot();
        final CollFlow flow = team.flow;
        if (op.kind != CollOperation.REDUCE || team.rank() == op.root || team.rank() == treeRoot
            || op.length > flatBelowBytes || team.size() > flatMaxRanks || op.length >= inPlaceMin
            || !flow.registered || flow.askerCount() > 0 || flow.ahead(treeRoot, op.sequence) >= CollFlow.WINDOW
            || early.holds(op.key())) {
            return false;
        }
        final int parent = team.jobRank(treeRoot);
        if (op.length > outbox.chunk(parent)) {
            return false;
        }
        if (flow.ahead(treeRoot, op.sequence) >= CollFlow.HALF && flow.shouldAsk(treeRoot)) {
            outbox.queueControl(team.id, parent, CollArgs.PHASE_ASK, flow.knownNext(treeRoot)); // as trySend asks
        }
        outbox.setArgs(team.id, op.sequence, CollArgs.word(op.kind, CollArgs.PHASE_UP, op.root), 0, op.length);
        if (outbox.send(parent, op.src(), 0, op.length) != Am.OK) {
            return false;
        }
        finishedHere(op);
        return true;
    }

    /**
     * Finishes {@code op} in the call where one of the paths below can: {@link #sentAsLeaf}, {@link #doneFromEarly},
     * {@link #sentAsRoot}.
     *
     * @return {@link Event#DONE}, or an event failed with a reduction function's exception; null where the operation
     *         must start (it may have been told how far this call got: {@link CollOperation#sentToFirst},
     *         {@link CollOperation#foldedToFirst})
     */
    Event finish(CollOperation op) {
        if (sentAsLeaf(op)) {
            return Event.DONE;
        }
        final Event event = doneFromEarly(op);
        return event != null ? event : sentAsRoot(op) ? Event.DONE : null;
    }

    /**
     * A flat reduce-to-one's or reduce-to-all's root whose members' values all came before its call, each whole in one
     * piece, as leaves that run ahead leave them ({@link #sentAsLeaf}), or a flat broadcast's leaf whose root's data
     * came so ({@link #sentAsRoot}): folds or copies them into the result now; a reduce-to-all's root then sends the
     * result down as {@link #sentAsRoot} does. That is {@link CollEngine#startedAndDone}'s work without its
     * bookkeeping, which took a third of it at a reduce-to-one's root, whose time per collective sets the collective's
     * rate.
     *
     * <p>Anything else takes the operation's way: the team's first collective here, a piece in parts or of another
     * phase (a probe, a failure notice), a call that differs from a member's, a value read in place.
     *
     * @return {@link Event#DONE}, or an event failed with the reduction function's exception; null where the
     *         operation must start
     */
    private Event doneFromEarly(CollOperation op) {
        final Team team = op.team;
        final boolean folds = op.kind == CollOperation.REDUCE || op.kind == CollOperation.REDUCE_ALL;
        final boolean takes = folds
            ? team.rank() == op.root && op.treeRoot() == op.root && op.length < inPlaceMin
            : op.kind == CollOperation.BROADCAST && team.rank() != op.root;
        if (!takes || op.length > flatBelowBytes || team.size() > flatMaxRanks || !team.flow.registered
            || early.size() == 0) {
            return null;
        }
        final long key = op.key();
        final ArrayList<CollEarlyPieces.Piece> pieces = early.remove(key);
        if (pieces == null) {
            return null;
        }
        final int[] children = team.shape(op.root, Math.max(2, team.size())).children;
        final int outcome = folds ? op.foldEarly(engine, children, pieces) : op.copyEarly(pieces);
        if (outcome == CollOperation.NOT_EARLY) {
            early.putBack(key, pieces);
            return null;
        }
        final CollFlow flow = team.flow;
        for (int i = 0; i < pieces.size(); i++) {
            flow.heard(team.teamRankUnchecked(pieces.get(i).fromJob), op.sequence);
        }
        early.release(pieces);
        if (outcome == CollOperation.DONE_EARLY && op.kind == CollOperation.REDUCE_ALL) {
            final int sent = sentDown(op, op.dst(), children);
            if (sent < children.length) {
                op.foldedToFirst(sent);
                return null;
            }
        }
        finishedHere(op);
        if (outcome == CollOperation.DONE_EARLY) {
            return Event.DONE;
        }
        final Event failed = engine.newEvent();
        CORE.completeSole(failed, op.failure());
        return failed;
    }

    /**
     * A flat broadcast's root sends its data to every member in one piece each, where the window and the path let it
     * go now, and is done at return, as {@link #sentAsLeaf} is. Where a send cannot go, the operation goes on from
     * that member; anything else unusual (the team's first collective here, pieces kept for this collective: a probe
     * or a failure notice) takes the operation's way from the start.
     *
     * @return true if done; false with the operation to start ({@link CollOperation#sentToFirst} says how far it got)
     */
    private boolean sentAsRoot(CollOperation op) {
        final Team team = op.team;
        if (op.kind != CollOperation.BROADCAST || team.rank() != op.root || op.length > flatBelowBytes
            || team.size() > flatMaxRanks || !team.flow.registered || early.holds(op.key())) {
            return false;
        }
        final int[] children = team.shape(op.root, Math.max(2, team.size())).children;
        MemorySegment.copy(op.src(), 0, op.dst(), 0, op.length);
        final int sent = sentDown(op, op.src(), children);
        if (sent < children.length) {
            op.sentToFirst(sent);
            return false;
        }
        finishedHere(op);
        return true;
    }

    /**
     * Sends {@code data} down to the flat tree's {@code children}, one piece each, while the window and the path let
     * them go.
     *
     * @return how many were sent: the first child whose send could not go now, or all
     */
    private int sentDown(CollOperation op, MemorySegment data, int[] children) {
        final Team team = op.team;
        final CollFlow flow = team.flow;
        for (int i = 0; i < children.length; i++) {
            final int to = children[i];
            final int jobRank = team.jobRank(to);
            final int ahead = flow.ahead(to, op.sequence);
            if (ahead >= CollFlow.HALF && flow.shouldAsk(to)) {
                outbox.queueControl(team.id, jobRank, CollArgs.PHASE_ASK, flow.knownNext(to)); // as trySend asks
            }
            if (ahead >= CollFlow.WINDOW || op.length > outbox.chunk(jobRank)) {
                return i;
            }
            outbox.setArgs(team.id, op.sequence, CollArgs.word(op.kind, CollArgs.PHASE_DOWN, op.root), 0, op.length);
            if (outbox.send(jobRank, data, 0, op.length) != Am.OK) {
                return i;
            }
        }
        return children.length;
    }

    /** The bookkeeping of a collective done in {@code submit} without an operation: its team's next, asks, record. */
    private void finishedHere(CollOperation op) {
        final CollFlow flow = op.team.flow;
        flow.nextStart = op.sequence + 1;
        if (flow.askerCount() > 0) {
            engine.answerAsks(op.team);
        }
        flow.finished(op.sequence, CollArgs.word(op.kind, 0, op.root), op.length);
    }
}
