package org.gexj.rdma.loopback;

import org.gexj.rdma.RdmaConduit;
import org.gexj.rdma.RdmaEngine;
import org.gexj.rdma.RdmaSettings;
import org.gexj.rdma.RdmaSizing;
import org.gexj.spi.ConduitContext;

import java.lang.foreign.Arena;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * For tests ({@code GEX_CONDUIT=rdma-loopback}): the RDMA engine over a {@link LoopbackNic}, so that the conformance
 * kits run against the engine alone, with no libfabric and no device. {@code GEX_RDMA_LOOPBACK_MULTI=false} gives a
 * NIC with one message per receive buffer (the shape of verbs' shared receive queue), the default the shape of
 * libfabric's multi-receive buffers; with it, {@code GEX_RDMA_LOOPBACK_ONDEMAND=true} posts receive buffers per
 * connected peer, as ibv's on-demand connections do. {@code GEX_RDMA_LOOPBACK_PEER_KEYS=false} gives a NIC that does
 * not register user memory for peers (as ibv), so registrations are reached over AM; by default they are reached by
 * key, as on ofi. Small frames, windows and chunks make the kits exercise
 * back-pressure, credit returns and RMA chunking.
 */
final class LoopbackRdmaConduit extends RdmaConduit {
    static final String MULTI = "GEX_RDMA_LOOPBACK_MULTI";
    static final String ONDEMAND = "GEX_RDMA_LOOPBACK_ONDEMAND";
    static final String PEER_KEYS = "GEX_RDMA_LOOPBACK_PEER_KEYS";
    private static final int FRAME = 16 << 10;
    /** Each rank's engine by job id and rank ({@link #engine(String, int)}), for tests that drive it directly. */
    private static final Map<String, RdmaEngine> ENGINES = new ConcurrentHashMap<>();

    LoopbackRdmaConduit(ConduitContext context) {
        final boolean multi = context.config().getBoolean(MULTI, true);
        final RdmaSettings settings = new RdmaSettings(FRAME, 8L * FRAME, 4, 64, 64, 30_000_000_000L,
            "GEX_RDMA_LOOPBACK_FRAME", "GEX_RDMA_LOOPBACK_CREDITS", "GEX_RDMA_LOOPBACK_TIMEOUT",
            RdmaSettings.registrationCacheBytes(context.config()));
        final boolean onDemand = context.config().getBoolean(ONDEMAND, false);
        final LoopbackFabric fabric = LoopbackFabric.join(context.jobId(), context.size(), multi, onDemand && !multi,
            RdmaSizing.slotBytes(settings));
        final LoopbackNic nic = new LoopbackNic(fabric, context.jobId(), context.rank(), context.size(),
            context.config().getBoolean(PEER_KEYS, true));
        final RdmaEngine engine = new RdmaEngine(nic, nic, Arena.ofShared(), settings, context.rank(),
            context.size(), context.health(), context.bootstrap(), nic.completionDataBytes(), false);
        ENGINES.put(context.jobId() + "/" + context.rank(), engine);
        start("rdma-loopback", engine, FRAME, FRAME, LoopbackNic.MAX_MESSAGE, 4096, context.bootstrap());
    }

    /** The engine of {@code rank} in the in-process job {@code jobId} (a client's {@code jobId()}). */
    static RdmaEngine engine(String jobId, int rank) {
        return ENGINES.get(jobId + "/" + rank);
    }

    @Override
    public String toString() {
        return "rdma-loopback conduit: " + engine().describe();
    }
}
