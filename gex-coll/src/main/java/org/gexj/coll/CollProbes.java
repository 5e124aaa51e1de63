package org.gexj.coll;

import org.gexj.coll.wire.CollArgs;

/**
 * The collectives' probes ({@code GEX_COLL_PROBE_MS}): a collective that has heard nothing for a period asks every
 * other member, once, to compare its call, which finds calls that differ where no piece would (roots that differ, each
 * tree waiting for a child that sends elsewhere). A member running the collective compares it as a piece
 * ({@link CollOperation#agrees}); one finished with it answers a difference from what it remembers
 * ({@link #answerFinished}); one that closed its client answers that it did ({@link #refuseAsClosing}); one that has
 * not started it keeps the probe as an early piece. A member that is only late fails nothing.
 *
 * <p>Threads: the holder of the client's delivery, as {@link CollEngine}.
 */
final class CollProbes {
    /** Polls, while a collective runs, between looks at the clock for stalled ones. */
    private static final int POLLS_PER_LOOK = 256;

    private final CollOutbox outbox;
    /** How long a collective hears nothing before it probes its members. */
    private final long probeAfterNanos;
    private int pollsSinceLook;
    private long lastLook = System.nanoTime();

    CollProbes(CollOutbox outbox, long probeAfterNanos) {
        this.outbox = outbox;
        this.probeAfterNanos = probeAfterNanos;
    }

    /**
     * From the polls while collectives run ({@code started}): once every {@link #probeAfterNanos}, a collective that
     * heard nothing since the last look (so for one to two periods) and waits, for pieces or with a piece the window or
     * a full path holds, probes its members. A held one probes too: a member that closed its client never answers the
     * window's ask, and answers the probe with a failure; a member that is only slow keeps the probe until it starts
     * the collective.
     */
    void poll(Iterable<CollOperation> started) {
        if (++pollsSinceLook < POLLS_PER_LOOK) {
            return;
        }
        pollsSinceLook = 0;
        final long now = System.nanoTime();
        if (now - lastLook < probeAfterNanos) {
            return;
        }
        lastLook = now;
        for (final CollOperation op : started) {
            if (op.looked && op.heard == op.heardAtLook && !op.probed && (!op.awake || op.sendHeld)
                && op.failure() == null) {
                op.probed = true;
                outbox.queueToOthers(op, CollArgs.word(op.kind, CollArgs.PHASE_PROBE, op.root), 0, op.length);
            }
            op.looked = true;
            op.heardAtLook = op.heard;
        }
    }

    /**
     * A probe for collective {@code sequence}, finished here: where the prober's call differs from the one this rank
     * finished, a failure notice to it alone (the others learn it from their own probes or from the prober).
     */
    void answerFinished(Team team, int sequence, int word, int total, int fromJob) {
        final int reason = team.flow.finishedDifferently(sequence, word, total);
        if (reason != 0) {
            outbox.queueNotice(team.id, sequence, CollArgs.word(CollArgs.kind(word), CollArgs.PHASE_FAILED,
                CollArgs.root(word)), reason | CollOperation.FINISHED_THERE, fromJob, 0);
        }
    }

    /**
     * This rank closes its client, so it will start no more collectives: every member that waits in one it has not
     * started, and so probes it, is answered with a failure: the probes {@code early} kept until now at once, later
     * ones as they come ({@link #refuseAsClosing}). Else a rank that left its program early (an exception out of its
     * try-with-resources block) would wait in its final barrier for members that wait in a collective for it.
     */
    void closing(CollEarlyPieces early) {
        early.forEachProbe((key, probe) -> refuseAsClosing((int) (key >>> 32), (int) key, probe.word, probe.fromJob));
    }

    /** Answers job rank {@code fromJob}'s probe of collective {@code sequence}, not started here: this rank closed. */
    void refuseAsClosing(int team, int sequence, int word, int fromJob) {
        outbox.queueNotice(team, sequence, CollArgs.word(CollArgs.kind(word), CollArgs.PHASE_FAILED,
            CollArgs.root(word)), CollOperation.CLOSED_THERE, fromJob, 0);
    }

    /**
     * Whether a piece ({@code word}, {@code offset}) says that its sender has started its collective, as every piece
     * does but the failure notice of a member that closed without starting it: that one must not open the window
     * toward it, or the collectives it holds would go out to a rank that will never run them.
     */
    static boolean startedThere(int word, int offset) {
        return CollArgs.phase(word) != CollArgs.PHASE_FAILED || offset != CollOperation.CLOSED_THERE;
    }
}
