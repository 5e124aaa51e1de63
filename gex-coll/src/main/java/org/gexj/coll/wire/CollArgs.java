package org.gexj.coll.wire;

/**
 * The five AM arguments of a collective's message (a Medium request to handler 96): which collective, which part of
 * which of its messages, and what the sender believes the collective is, so that a receiver whose own call differs
 * (arguments that should be single-valued) fails it instead of waiting.
 *
 * <pre>
 *   0  team id      agreed by the team's members when the team was made (the job team is 0)
 *   1  sequence     the collective's number among the team's collectives, in issue order
 *   2  word         kind (bits 0-3), phase (bits 4-9), root's team rank (bits 10-31)
 *   3  offset       of this piece in the message (or, for a failure notice, the reason)
 *   4  total        the message's length in bytes
 * </pre>
 * A piece that is its whole message (offset 0, total the payload's length: small data, control, most notices) goes
 * with the first {@link #WHOLE_COUNT} only, to a handler of its own, which takes offset and total from the payload.
 * Phases: a barrier's round; 0 for data going up a tree (reductions), 1 for data coming down (broadcasts);
 * {@link #PHASE_UP_AT} for a reduction's value left in the sender's segment, where a parent that maps it reads it in
 * place (offset: where it lies in that segment), and {@link #PHASE_READ} for the parent's answer that it has read it;
 * {@link #PHASE_FAILED} for a notice that the sender found the collective's arguments differ; {@link #PHASE_PROBE}
 * for a stalled member's question whether the receiver called the same collective (no data; total: the sender's
 * size); {@link #PHASE_ASK} and {@link #PHASE_ANSWER}, of kind 0, for the team's flow control (how far the receiver
 * has gone; no collective).
 */
public final class CollArgs {
    public static final int COUNT = 5;
    public static final int WHOLE_COUNT = 3;
    public static final int TEAM = 0;
    public static final int SEQUENCE = 1;
    public static final int WORD = 2;
    public static final int OFFSET = 3;
    public static final int TOTAL = 4;

    public static final int PHASE_UP = 0;
    public static final int PHASE_DOWN = 1;
    public static final int PHASE_UP_AT = 2;
    public static final int PHASE_READ = 3;
    /**
     * A member whose collective has heard nothing for a while asks the receiver to compare its call: where no piece
     * crosses between members whose roots differ, each waits for a piece the other will never send.
     */
    public static final int PHASE_PROBE = 60;
    /** A sender's ask of how far the receiver has gone (sequence: what the sender knew; kind 0). */
    public static final int PHASE_ASK = 61;
    /** The answer: sequence is the receiver's next collective to start on the team (kind 0). */
    public static final int PHASE_ANSWER = 62;
    public static final int PHASE_FAILED = 63;
    /** The largest root a word holds: teams of up to 2^22 ranks. */
    public static final int MAX_ROOT = (1 << 22) - 1;

    private CollArgs() {
    }

    public static int word(int kind, int phase, int root) {
        return kind | phase << 4 | root << 10;
    }

    public static int kind(int word) {
        return word & 0xF;
    }

    public static int phase(int word) {
        return (word >>> 4) & 0x3F;
    }

    public static int root(int word) {
        return word >>> 10;
    }
}
