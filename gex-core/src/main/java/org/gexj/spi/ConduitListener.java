package org.gexj.spi;

import org.agrona.DirectBuffer;

/**
 * What a conduit delivers during {@link Conduit#poll}, on the polling thread: whole AM frames, remote writes that
 * landed here with their immediate data, and completions of this rank's RMA operations.
 */
public interface ConduitListener {
    /**
     * An inbound frame; the buffer region is valid only during the call.
     *
     * @param channel {@link Conduit#REQUEST} or {@link Conduit#REPLY}
     */
    void onFrame(int channel, DirectBuffer buffer, int offset, int length);

    /**
     * {@link #onRemoteWrite}'s source when the conduit cannot tell it (the immediate's own source field then counts).
     */
    int SOURCE_UNKNOWN = -1;

    /**
     * A put-with-immediate from {@code source} has landed in this rank's segment.
     *
     * @param source the writer's rank, or {@link #SOURCE_UNKNOWN} where the transport does not report it (libfabric's
     *               verbs;ofi_rxm gives remote writes no source address)
     */
    default void onRemoteWrite(int source, long immediate) {
    }

    /**
     * This rank's RMA operation {@code operation} completed.
     *
     * @param status {@link Conduit#OK}, or one of {@link RmaTransport}'s negative failure codes
     *               ({@link RmaTransport#describe} names it)
     */
    default void onRmaCompletion(long operation, int status) {
    }
}
