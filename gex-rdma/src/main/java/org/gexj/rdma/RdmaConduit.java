package org.gexj.rdma;

import org.gexj.spi.AttachedSegments;
import org.gexj.spi.Bootstrap;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.RegisteredAccess;
import org.gexj.spi.RmaTransport;

import java.util.Map;

/**
 * A conduit over the {@link RdmaEngine}: the conduit SPI's calls forwarded to the engine, written once for every
 * conduit over an RDMA NIC (ofi, ibv, the tests' loopback). A subclass opens its NIC, builds its engine and calls
 * {@link #start} once from its constructor, before the conduit is published; it adds its start-up line
 * ({@link #toString}) and any counters of its own.
 */
public abstract class RdmaConduit implements Conduit {
    /** Set once, by {@link #start}. */
    private RdmaEngine engine;
    /** Set once, by {@link #start}. */
    private Capabilities capabilities;

    protected RdmaConduit() {
    }

    /**
     * Takes {@code engine}, states the capabilities every conduit over it shares (native RMA, deferred local
     * completion, no barrier or channel order of its own; a reassembled Long's payload is one write carrying its
     * immediate, so at most one message of {@code maxMessage} bytes), and waits for every rank at the bootstrap's
     * barrier, so that every rank's receive buffers are posted before anyone sends. Closes the engine if that fails.
     *
     * @param name       the conduit's name in its capabilities ("ofi")
     * @param engine     the engine over the subclass's NIC
     * @param frame      the largest frame, and so packed Long, and Medium raised with {@code GEX_AM_MAX_MEDIUM}
     * @param maxMedium  the default Medium limit (at most what a frame holds)
     * @param maxMessage the NIC's largest message, and so Long
     * @param packedLong the largest Long that travels packed by default ({@link Capabilities#packedLongDefault})
     * @param bootstrap  the job's bootstrap, for the barrier
     */
    protected final void start(String name, RdmaEngine engine, int frame, long maxMedium, long maxMessage,
                               long packedLong, Bootstrap bootstrap) {
        this.engine = engine;
        this.capabilities = Capabilities.builder(name).maxFrameLength(frame).maxMedium(maxMedium, maxMedium)
            .maxLong(maxMessage, maxMessage).maxPackedLong(frame).packedLongDefault(Math.min(packedLong, frame))
            .immediateBits(engine.immediateBits()).nativeRma(true).crossMapped(false)
            .deferredLocalCompletion(true).conduitBarrier(false).orderedChannels(false).build();
        try {
            bootstrap.barrier();
        } catch (RuntimeException | Error e) {
            engine.close();
            throw e;
        }
    }

    /** The engine {@link #start} took. */
    protected final RdmaEngine engine() {
        return engine;
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
    public final boolean awaitActivity(long nanos) {
        return engine.awaitActivity(nanos);
    }

    /** The NIC's {@link RdmaNic#yieldsWhileWaiting}. */
    @Override
    public final boolean yieldsWhileWaiting() {
        return engine.yieldsWhileWaiting();
    }

    @Override
    public final RmaTransport rma() {
        return engine.rma();
    }

    /** The engine's registrations for peers' RMA by key, or null where the NIC does not offer them. */
    @Override
    public final RegisteredAccess registeredAccess() {
        return engine.registeredAccess();
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
