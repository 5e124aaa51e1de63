package org.gexj.rdma;

/**
 * Completion entries a {@link RdmaNic#read} filled, read by index. Reading a field allocates nothing.
 */
public interface RdmaCompletions {
    /** The context the operation was posted with, or 0 for none (a provider's own event). */
    long context(int i);

    /** Whether entry {@code i} is a peer's write that delivered remote completion data ({@link #data}). */
    boolean remoteData(int i);

    /** Whether entry {@code i} gives its receive buffer back (the buffer's last message, or its only one). */
    boolean releases(int i);

    /** Bytes received. */
    long length(int i);

    /** Where a received message starts, as an address. */
    long buffer(int i);

    /** The remote completion data of a peer's write. */
    long data(int i);

    /** The source ({@link RdmaNic#address}), {@link RdmaNic#FOREIGN_SOURCE} or {@link RdmaNic#UNKNOWN_SOURCE}. */
    long source(int i);
}
