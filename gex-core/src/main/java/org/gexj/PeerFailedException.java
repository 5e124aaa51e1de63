package org.gexj;

/** A peer rank (or the launcher, rank -1) died or aborted the job; the job cannot continue. */
public class PeerFailedException extends GexException {
    private final int rank;
    private final String reason;

    public PeerFailedException(int rank, String reason) {
        super((rank >= 0 ? "rank " + rank : "launcher") + " failed: " + reason);
        this.rank = rank;
        this.reason = reason;
    }

    /** The failed rank, or -1 for the launcher / bootstrap service. */
    public int rank() {
        return rank;
    }

    public String reason() {
        return reason;
    }
}
