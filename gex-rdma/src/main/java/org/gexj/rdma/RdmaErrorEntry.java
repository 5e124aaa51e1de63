package org.gexj.rdma;

/** A completion-queue error entry {@link RdmaNic#readError} filled. */
public interface RdmaErrorEntry {
    /** The context of the operation that failed, or 0 for none. */
    long context();

    /** The NIC's text of the error, with its code. */
    String text();
}
