package org.gexj.spi;

import org.agrona.DirectBuffer;

/** Receives inbound AM frames during {@link Conduit#poll}. The buffer region is valid only during the call. */
@FunctionalInterface
public interface FrameHandler {
    /**
     * @param channel {@link Conduit#REQUEST} or {@link Conduit#REPLY}
     * @param buffer  buffer holding the frame
     * @param offset  frame start
     * @param length  frame length in bytes
     */
    void onFrame(int channel, DirectBuffer buffer, int offset, int length);
}
