package org.gexj.rdma;

/** A completion-queue error entry {@link RdmaNic#readError} filled. */
public interface RdmaErrorEntry {
    /** The context of the operation that failed, or 0 for none. */
    long context();

    /** The NIC's text of the error, with its code. */
    String text();

    /**
     * The rank the failed operation was addressed to, if the NIC knows it, else -1: an operation without a context
     * (an inject) that failed toward a known peer then fails the job naming that peer.
     */
    default int peer() {
        return -1;
    }
}
