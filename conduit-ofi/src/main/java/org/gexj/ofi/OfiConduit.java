package org.gexj.ofi;

import org.gexj.ofi.ffm.Fabric;
import org.gexj.rdma.RdmaConduit;
import org.gexj.rdma.RdmaEngine;
import org.gexj.rdma.RdmaSettings;
import org.gexj.rdma.RdmaSizing;
import org.gexj.spi.ConduitContext;

import java.lang.foreign.Arena;
import java.util.Map;

/**
 * GEX/J over one libfabric RDM endpoint ({@code GEX_CONDUIT=ofi}); see the module README for the design and the
 * settings ({@link OfiSettings}). An adapter of the RDMA engine ({@link RdmaEngine}, module gex-rdma), which holds
 * everything that is not about libfabric: send slots, credits, the backlog, deferral, completion dispatch, RMA
 * chunking and the close's handshake, with their threading rules. This class opens the fabric ({@link OfiFabric}),
 * wraps its endpoint as the engine's NIC ({@link OfiNic}), learns the peers' addresses, and states the capabilities.
 */
final class OfiConduit extends RdmaConduit {
    /**
     * Every Long a frame holds travels packed by default: libfabric's providers here (tcp;ofi_rxm, shm, udp;ofi_rxd,
     * sockets) carry a write over the same transport as a message, so a write and its envelope cost two messages.
     * tcp;ofi_rxm, 27 Nov 2026: 8 KiB Long floods one-way 6.1-7.2 us packed against 11.7-12.4 us reassembled
     * (GASNet-EX 5.9); at 16000 bytes testam's Long rows 8-34% faster packed, but the flood round trip 3-5% slower.
     */
    private static final long PACKED_LONG = Long.MAX_VALUE;
    /**
     * The default Medium limit, as GASNet-EX's ofi-conduit ({@code GASNET_OFI_MAX_MEDIUM}): a frame holds up to
     * 16296 bytes, which {@code GEX_AM_MAX_MEDIUM} reaches. tcp;ofi_rxm, 28 Nov 2026: testam's max Medium rows took
     * 1.29-1.58 times GASNet's with 16296 bytes against its 8192, and 0.70-0.95 times with 8192 bytes on both sides.
     */
    static final long MAX_MEDIUM = 8192;
    private final int rank;
    private final int size;
    private final OfiSettings settings;
    private final OfiFabric fabric;

    private OfiConduit(ConduitContext context) {
        this.rank = context.rank();
        this.size = context.size();
        this.settings = OfiSettings.from(context.config(), context.bootstrap().localAddress());
        // messageCredits is unused: libfabric's multi-receive buffers take many messages, and credits count bytes
        final RdmaSettings engineSettings = new RdmaSettings(settings.frameLength(), settings.creditBytes(), 0,
            settings.sendBuffers(), settings.rmaOperations(), settings.timeoutNanos(), OfiSettings.FRAME,
            OfiSettings.CREDIT_BYTES, OfiSettings.TIMEOUT, RdmaSettings.registrationCacheBytes(context.config()));
        this.fabric = OfiFabric.open(settings, size, RdmaSizing.completionQueueEntries(engineSettings, size, true),
            RdmaSizing.slotBytes(engineSettings));
        final Arena arena = Arena.ofShared();
        final OfiNic nic;
        try {
            nic = new OfiNic(fabric, size, arena, settings.peerKeys(fabric.provider));
            nic.learnAddresses(context.bootstrap(), rank);
        } catch (RuntimeException | Error e) {
            fabric.close();
            arena.close();
            throw e;
        }
        final long cqData = Math.min(fabric.cqDataSize, settings.cqDataBytes(fabric.provider));
        start("ofi", new RdmaEngine(nic, fabric, arena, engineSettings, rank, size, context.health(),
            context.bootstrap(), cqData, context.config().getBoolean("GEX_EXIT_ON_FAILURE", false)),
            settings.frameLength(), MAX_MEDIUM, fabric.maxMessageSize, PACKED_LONG, context.bootstrap());
        if (rank == 0) {
            System.err.println("gex: " + this);
        }
    }

    /** Collective over the job: opens this rank's endpoint and learns every other one's address. */
    static OfiConduit open(ConduitContext context) {
        return new OfiConduit(context);
    }

    /** Provider, domain and the limits that follow from it, printed by rank 0 at start-up. */
    @Override
    public String toString() {
        return "ofi conduit rank " + rank + " of " + size + ": provider " + fabric.provider + ", domain "
            + fabric.domainName + ", max message " + fabric.maxMessageSize + " B, inject " + fabric.injectSize
            + " B, CQ data " + fabric.cqDataSize + " B"
            + (settings.cqDataBytes(fabric.provider) < fabric.cqDataSize ? " (" + settings.cqDataBytes(fabric.provider)
            + " used)" : "")
            + ", mr_mode " + Fabric.mrModeText(fabric.mrMode)
            + (engine().registeredAccess() != null ? ", registrations by key" : "") + ", " + engine().describe();
    }

    /**
     * The engine's counters ({@link RdmaConduit#counters}, prefixed {@code ofi.}), and {@code ofi.source-checked}: 1
     * where the provider names sources ({@code FI_SOURCE}). Also readable after {@link #close()}.
     */
    @Override
    public Map<String, Long> counters() {
        final Map<String, Long> m = engine().counters();
        m.put("ofi.source-checked", fabric.sourceKnown ? 1L : 0L);
        return m;
    }

    /** For tests: credits toward {@code peer}'s {@code channel}, in units. */
    int credits(int peer, int channel) {
        return engine().credits(peer, channel);
    }

    int windowUnits() {
        return engine().windowUnits();
    }

    String provider() {
        return fabric.provider;
    }
}
