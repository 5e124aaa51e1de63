package org.gexj.coll;

import org.agrona.collections.IntArrayQueue;
import org.gexj.Flags;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.coll.wire.CollArgs;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * What {@link CollEngine} sends, and what it has still to send: every message is a Medium request to one library
 * handler ({@link CollEngine#HANDLER}, or {@link CollEngine#WHOLE_HANDLER} for a piece that is its whole message, with
 * fewer arguments), tried without waiting ({@link Flags#IMMEDIATE}). {@link CollFlow}'s asks and answers, and the
 * failure notices and probes, wait here for a path with room; a data piece that finds none stays with its operation.
 *
 * <p>Threads: the holder of the client's delivery, as {@link CollEngine}.
 */
final class CollOutbox {
    private final Am am;
    private final int[] args = new int[CollArgs.COUNT];
    /** {@link CollFlow}'s asks and answers still to send: team id, job rank, phase, sequence. */
    private final IntArrayQueue control = new IntArrayQueue();
    /** Failure notices and probes still to send: team id, sequence, word, reason, job rank, total. */
    private final ArrayDeque<int[]> notices = new ArrayDeque<>();

    CollOutbox(Am am) {
        this.am = am;
    }

    /** Sets the arguments ({@link CollArgs}) of the next {@link #send}, in the one array it sends from. */
    void setArgs(int team, int sequence, int word, int offset, int total) {
        args[CollArgs.TEAM] = team;
        args[CollArgs.SEQUENCE] = sequence;
        args[CollArgs.WORD] = word;
        args[CollArgs.OFFSET] = offset;
        args[CollArgs.TOTAL] = total;
    }

    /**
     * Sends the arguments set last and {@code bytes} of {@code data} from {@code offset}: with
     * {@link CollArgs#WHOLE_COUNT} arguments to {@link CollEngine#WHOLE_HANDLER} where the piece is its whole message
     * (offset 0, total {@code bytes}), which the receiver restores from the payload's length, else with all of them.
     *
     * @return {@link Am#OK}, or not if the path is full
     */
    int send(int jobRank, MemorySegment data, int offset, int bytes) {
        final boolean whole = args[CollArgs.OFFSET] == 0 && args[CollArgs.TOTAL] == bytes;
        return am.requestMedium(jobRank, whole ? CollEngine.WHOLE_HANDLER : CollEngine.HANDLER, data, offset, bytes,
            Lc.NOW, Flags.IMMEDIATE, args, whole ? CollArgs.WHOLE_COUNT : CollArgs.COUNT);
    }

    /** The largest piece to {@code jobRank}. */
    int chunk(int jobRank) {
        return (int) Math.min(Integer.MAX_VALUE, am.maxRequestMedium(jobRank, CollArgs.COUNT));
    }

    /** Queues an ask or an answer of {@link CollFlow} ({@link CollArgs#PHASE_ASK}, {@link CollArgs#PHASE_ANSWER}). */
    void queueControl(int team, int jobRank, int phase, int sequence) {
        control.addInt(team);
        control.addInt(jobRank);
        control.addInt(phase);
        control.addInt(sequence);
    }

    /** Sends the queued asks and answers until a path is full. @return how many went */
    int sendControl() {
        int sent = 0;
        while (!control.isEmpty()) {
            final int team = control.pollInt();
            final int jobRank = control.pollInt();
            final int phase = control.pollInt();
            final int sequence = control.pollInt();
            setArgs(team, sequence, CollArgs.word(0, phase, 0), 0, 0);
            if (send(jobRank, null, 0, 0) != Am.OK) {
                queueControl(team, jobRank, phase, sequence); // to the back: their order does not matter
                break;
            }
            sent++;
        }
        return sent;
    }

    /** Queues a failure notice or a probe to job rank {@code jobRank} (control path: allocates). */
    void queueNotice(int team, int sequence, int word, int offset, int jobRank, int total) {
        notices.add(new int[] {team, sequence, word, offset, jobRank, total});
    }

    /** Queues a notice or a probe of {@code op} for every other member of its team (control path: allocates). */
    void queueToOthers(CollOperation op, int word, int offset, int total) {
        for (int r = 0; r < op.team.size(); r++) {
            if (r != op.team.rank()) {
                queueNotice(op.team.id, op.sequence, word, offset, op.team.jobRank(r), total);
            }
        }
    }

    /** Sends the queued notices and probes, in order, until a path is full. @return how many went */
    int sendNotices() {
        int sent = 0;
        for (int[] n = notices.peek(); n != null; n = notices.peek()) {
            setArgs(n[0], n[1], n[2], n[3], n[5]);
            if (send(n[4], null, 0, 0) != Am.OK) {
                break;
            }
            notices.poll();
            sent++;
        }
        return sent;
    }

    /** Nothing is queued. */
    boolean isEmpty() {
        return control.isEmpty() && notices.isEmpty();
    }

    /** Queued notices and probes. */
    int notices() {
        return notices.size();
    }

    /** Queued asks and answers. */
    int controlMessages() {
        return control.size() / 4;
    }
}
