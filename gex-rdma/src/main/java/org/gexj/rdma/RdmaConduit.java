package org.gexj.rdma;

import org.gexj.spi.AttachedSegments;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.RmaTransport;

import java.util.Map;

/**
 * A conduit over the {@link RdmaEngine}: the conduit SPI's calls forwarded to the engine, written once for every
 * conduit over an RDMA NIC (ofi, ibv, the tests' loopback). A subclass opens its NIC, and its constructor sets
 * {@link #engine} and {@link #capabilities} once, before the conduit is published; it adds its start-up line
 * ({@link #toString}) and any counters of its own.
 */
public abstract class RdmaConduit implements Conduit {
    /** Set once by the subclass's constructor. */
    protected RdmaEngine engine;
    /** Set once by the subclass's constructor. */
    protected Capabilities capabilities;

    protected RdmaConduit() {
    }

    @Override
    public final Capabilities capabilities() {
        return capabilities;
    }

    /**
     * @return {@link #OK}, or {@link #NO_ROOM} when no send buffer is free, the target's credits are short, or
     *         the NIC still refuses an earlier frame to the target
     */
    @Override
    public final int claim(Claim claim, int target, int channel, int length) {
        return engine.claim(claim, target, channel, length);
    }

    @Override
    public final void commit(Claim claim) {
        engine.commit(claim);
    }

    @Override
    public final void abort(Claim claim) {
        engine.abort(claim);
    }

    @Override
    public final int poll(ConduitListener listener, int channelMask, int limit) {
        return engine.poll(listener, channelMask, limit);
    }

    @Override
    public final RmaTransport rma() {
        return engine.rma();
    }

    @Override
    public final AttachedSegments attachSegment(long bytes) {
        return engine.attachSegment(bytes);
    }

    /**
     * Closes the NIC (the endpoint or queue pairs and every native object, newest first), then frees the memory.
     * Idempotent. Unless the job failed, first exchanges CLOSE messages with every peer while driving progress.
     */
    @Override
    public final void close() {
        engine.close();
    }

    /**
     * The engine's counters ({@link RdmaEngine#counters}: {@code <conduit>.staged.operations},
     * {@code .staged.bytes}, {@code .dropped.foreign}, {@code .dropped.malformed}, {@code .source-mismatch}); a
     * subclass adds its own to this map. Also readable after {@link #close()}.
     */
    @Override
    public Map<String, Long> counters() {
        return engine.counters();
    }
}
