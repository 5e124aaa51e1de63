package org.gexj;

/**
 * Thrown by {@link Client#exit(int)} in a rank that is a thread ({@code InProcessJob}) rather than a process of its
 * own, where ending the process would end every rank: it unwinds the rank's body instead.
 */
public final class JobExitException extends GexException {
    private final int rank;
    private final int code;

    public JobExitException(int rank, int code) {
        super("rank " + rank + " called exit(" + code + ")");
        this.rank = rank;
        this.code = code;
    }

    public int rank() {
        return rank;
    }

    public int code() {
        return code;
    }
}
