package org.gexj.am.internal;

/**
 * Where a remote write whose immediate is not an AM Long payload's goes: the tag's kind bit (the top bit of the
 * conduit's {@code Capabilities.immediateBits()}) is 0, and its other bits are the sink's. The RMA layer's puts with
 * completion use it to mark what arrived. Called on the polling thread, one write at a time.
 */
@FunctionalInterface
public interface RemoteWriteSink {
    /**
     * @param source the writer's rank as the conduit reports it, or {@code ConduitListener.SOURCE_UNKNOWN}
     * @param tag    the write's immediate
     */
    void onRemoteWrite(int source, long tag);
}
