package org.gexj.ibv;

import org.gexj.Config;
import org.gexj.rdma.RdmaConduit;
import org.gexj.rdma.RdmaEngine;
import org.gexj.rdma.RdmaSettings;
import org.gexj.rdma.RdmaSizing;
import org.gexj.spi.ConduitContext;

import java.lang.foreign.Arena;
import java.util.HashMap;
import java.util.Map;

/**
 * GEX/J over InfiniBand/RoCE verbs ({@code GEX_CONDUIT=ibv}); see the module README for the design and the settings
 * ({@link IbvSettings}, {@link IbvConduitSettings}). An adapter of the RDMA engine ({@link RdmaEngine}, module
 * gex-rdma), which holds everything that is not about verbs: send slots, credits (counting messages, as each fills a
 * buffer of the shared receive queue), the backlog, deferral, completion dispatch, RMA chunking and the close's
 * handshake, with their threading rules. This class opens the device ({@link IbvDevice}), wraps its queues as the
 * engine's NIC ({@link IbvNic}), connects the queue pairs (at open, or on demand: {@link IbvConnector}), and states
 * the capabilities.
 */
final class IbvConduit extends RdmaConduit {
    /** Longs above 4 KiB go by RDMA write (the builder's default; not measured against packed on soft-RoCE). */
    private static final long PACKED_LONG = 4096;
    private final int rank;
    private final int size;
    private final IbvConduitSettings settings;
    private final IbvDevice device;
    private final IbvNic nic;

    /** Nanoseconds the open took, from the device's opening to the connections' (static) or their start (ondemand). */
    private final long openNanos;

    private IbvConduit(ConduitContext context) {
        final long start = System.nanoTime();
        this.rank = context.rank();
        this.size = context.size();
        final Config config = context.config();
        this.settings = IbvConduitSettings.from(config);
        final IbvSettings.Choice choice = deviceSettings(config).choose(IbvInventory.scan());
        // creditBytes is unused: each message fills a receive buffer of its own, and credits count messages
        final RdmaSettings engineSettings = new RdmaSettings(settings.frameLength(), 0, settings.credits(),
            settings.sendBuffers(), settings.rmaOperations(), settings.timeoutNanos(), IbvConduitSettings.FRAME,
            IbvConduitSettings.CREDITS, IbvConduitSettings.TIMEOUT, RdmaSettings.registrationCacheBytes(config));
        this.device = IbvDevice.open(choice);
        final Arena arena = Arena.ofShared();
        try {
            nic = new IbvNic(device, settings, rank, size, arena,
                RdmaSizing.completionQueueEntries(engineSettings, size, false),
                RdmaSizing.singleReceiveBuffers(engineSettings, size), context.health());
            if (settings.connectsStatically()) {
                nic.connectStatic(context.bootstrap());
            } else {
                nic.connectOnDemand(context.bootstrap(), arena);
            }
        } catch (RuntimeException | Error e) {
            device.close();
            arena.close();
            throw e;
        }
        start("ibv", new RdmaEngine(nic, nic, arena, engineSettings, rank, size, context.health(),
            context.bootstrap(), nic.completionDataBytes(), config.getBoolean("GEX_EXIT_ON_FAILURE", false)),
            settings.frameLength(), settings.frameLength(), nic.maxMessageSize(), PACKED_LONG, context.bootstrap());
        this.openNanos = System.nanoTime() - start;
        if (rank == 0) {
            System.err.println("gex: " + this);
        }
    }

    /** The device and port settings of {@code config} ({@code GEX_IBV_DEVICE}, {@code GEX_IBV_PORT}). */
    private static IbvSettings deviceSettings(Config config) {
        final Map<String, String> env = new HashMap<>();
        for (String key : new String[] {IbvSettings.DEVICE, IbvSettings.PORT}) {
            final String value = config.get(key, null);
            if (value != null) {
                env.put(key, value);
            }
        }
        return IbvSettings.from(env);
    }

    /**
     * Collective over the job: opens this rank's device and queues, and connects a queue pair to every rank
     * ({@code GEX_IBV_CONNECT=static}) or only to itself, the others on demand (the default).
     */
    static IbvConduit open(ConduitContext context) {
        return new IbvConduit(context);
    }

    /** Device, port, GID and the limits that follow from them, printed by rank 0 at start-up. */
    @Override
    public String toString() {
        return "ibv conduit rank " + rank + " of " + size + ": device " + device.name + " port " + device.port
            + ", GID index " + device.gidIndex + " (" + device.gidType() + "), connect " + settings.connect()
            + ", max inline " + nic.maxInline() + " B, max message " + nic.maxMessageSize() + " B, send queue "
            + nic.sendQueueDepth() + " per QP, " + engine().describe();
    }

    /**
     * The engine's counters ({@link RdmaEngine#counters}: {@code ibv.staged.operations}, {@code ibv.staged.bytes},
     * {@code ibv.receive.buffers} (on demand, a share per connected rank, itself included), {@code
     * ibv.dropped.foreign}, {@code ibv.dropped.malformed}, {@code ibv.source-mismatch}), {@code ibv.qps}: RC
     * queue pairs of this rank (one per peer connected, two toward itself; the UD QP of on-demand connections not
     * counted), {@code ibv.registered.bytes}: memory registered now (pinned), {@code ibv.open.micros}: how long the
     * open took, and of the connections: {@code ibv.connections} (peers with a QP), {@code ibv.connect.requests}
     * (connections this rank asked for), {@code ibv.connect.micros} (their set-up time, request to connected, summed),
     * {@code ibv.connect.retries} (datagrams sent again),
     * {@code ibv.connect.dropped} (stale or foreign datagrams), {@code ibv.connect.lost} (datagrams that found no
     * room to go). Also readable after {@link #close()}.
     */
    @Override
    public Map<String, Long> counters() {
        final Map<String, Long> m = engine().counters();
        m.put("ibv.qps", (long) nic.queuePairs());
        m.put("ibv.registered.bytes", nic.registeredBytes());
        m.put("ibv.open.micros", openNanos / 1000);
        final IbvConnector c = nic.connector();
        m.put("ibv.connections", (long) c.connections());
        m.put("ibv.connect.requests", c.requests());
        m.put("ibv.connect.micros", c.setupNanos() / 1000);
        m.put("ibv.connect.retries", c.retries());
        m.put("ibv.connect.dropped", c.dropped() + nic.datagramsForeign());
        m.put("ibv.connect.lost", nic.datagramsLost());
        return m;
    }
}
