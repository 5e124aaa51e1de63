package org.gexj.ofi;

import org.gexj.ofi.ffm.Fabric;
import org.gexj.ofi.ffm.FiDomain;
import org.gexj.ofi.ffm.FiEndpoint;
import org.gexj.ofi.ffm.FiEq;
import org.gexj.ofi.ffm.FiInfo;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;

/**
 * The libfabric objects of one rank, opened in order (info, fabric, domain, CQ, AV, endpoint) and closed in reverse:
 * the control path of the conduit. Chooses the provider: the one named by {@code GEX_OFI_PROVIDER}/{@code FI_PROVIDER},
 * else the first of {@link #PREFERENCE} that offers an RDM endpoint with messages, RMA and multi-receive buffers.
 */
final class OfiFabric implements AutoCloseable {
    /**
     * Providers in the order the conduit prefers them when none is named: hardware first, then the portable ones,
     * measured on a 2-core VM for the last four (testam AMShort round trip, loopback): tcp;ofi_rxm before shm (as
     * {@code fi_pingpong} found, 7.9 against 13.7 µs one way), udp;ofi_rxd and sockets last.
     */
    static final List<String> PREFERENCE = List.of("cxi", "efa", "opx", "psm3", "psm2", "verbs;ofi_rxm",
        "tcp;ofi_rxm", "shm", "net", "udp;ofi_rxd", "sockets");

    /** The capabilities every endpoint needs. */
    static final long REQUIRED_CAPS = Fabric.FI_MSG | Fabric.FI_RMA | Fabric.FI_MULTI_RECV;
    /** The modes the conduit can honour: it passes a 64-byte context with every operation. */
    static final long SUPPORTED_MODES = Fabric.FI_CONTEXT | Fabric.FI_CONTEXT2;
    /** The registration modes the conduit can honour. */
    static final int SUPPORTED_MR_MODES = Fabric.FI_MR_LOCAL | Fabric.FI_MR_VIRT_ADDR | Fabric.FI_MR_ALLOCATED
        | Fabric.FI_MR_PROV_KEY | Fabric.FI_MR_ENDPOINT;

    private static final MethodHandle STRDUP = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("strdup").orElseThrow(), FunctionDescriptor.of(ADDRESS, ADDRESS));

    final MemorySegment infoList;
    final FiInfo info;
    final String provider;
    final String domainName;
    final int mrMode;
    final long cqDataSize;
    final long maxMessageSize;
    final long injectSize;
    /** The endpoint has {@code FI_SOURCE}: its CQ names each message's source ({@code fi_cq_readfrom}). */
    final boolean sourceKnown;
    /** The endpoint has {@code FI_ATOMIC}: the NIC performs remote atomics ({@code fi_query_atomic} says which). */
    final boolean atomics;
    MemorySegment fabric = MemorySegment.NULL;
    MemorySegment domain = MemorySegment.NULL;
    MemorySegment cq = MemorySegment.NULL;
    MemorySegment av = MemorySegment.NULL;
    MemorySegment ep = MemorySegment.NULL;
    /** The completion queue's file descriptor ({@code FI_WAIT_FD}), or -1 where it has none. */
    int cqWaitFd = -1;
    private final List<Runnable> closers = new ArrayList<>();

    private OfiFabric(MemorySegment infoList, FiInfo info) {
        this.infoList = infoList;
        this.info = info;
        this.provider = info.provider();
        this.domainName = info.domainName();
        this.mrMode = info.mrMode();
        this.cqDataSize = info.cqDataSize();
        final long max = info.maxMessageSize();
        this.maxMessageSize = max < 0 ? Long.MAX_VALUE : max; // size_t: 2^64-1 means unlimited
        this.injectSize = info.injectSize();
        this.sourceKnown = (info.caps() & Fabric.FI_SOURCE) != 0;
        this.atomics = (info.caps() & Fabric.FI_ATOMIC) != 0;
    }

    /**
     * Chooses a provider and opens fabric, domain, CQ ({@code cqSize} entries), AV ({@code ranks} entries) and an RDM
     * endpoint bound to both, with multi-receive buffers of at least {@code minMultiRecv} bytes free; enables it.
     *
     * @throws OfiException naming what is missing when no provider fits
     */
    static OfiFabric open(OfiSettings settings, int ranks, long cqSize, long minMultiRecv) {
        final OfiFabric f = choose(settings.provider(), settings.node());
        try {
            f.fabric = Fabric.openFabric(f.info.fabricAttr());
            f.closers.add(() -> Fabric.close(f.fabric, "fabric"));
            f.domain = Fabric.openDomain(f.fabric, f.info.segment());
            f.closers.add(() -> Fabric.close(f.domain, "domain"));
            f.openCq(cqSize, settings.cqWaitFd());
            f.av = FiDomain.openAv(f.domain, Fabric.FI_AV_TABLE, ranks);
            f.closers.add(() -> Fabric.close(f.av, "address vector"));
            if ("shm".equals(f.provider)) {
                ShmLeftovers.removeOnce();
            }
            f.ep = FiDomain.openEndpoint(f.domain, f.info.segment());
            f.closers.add(() -> Fabric.close(f.ep, "endpoint"));
            FiEndpoint.bind(f.ep, f.cq, Fabric.FI_TRANSMIT | Fabric.FI_RECV);
            FiEndpoint.bind(f.ep, f.av, 0);
            FiEndpoint.enable(f.ep);
            // after fi_enable: shm 1.17 keeps the option in a receive context that enabling creates
            FiEndpoint.setSizeOption(f.ep, FiEndpoint.FI_OPT_ENDPOINT, FiEndpoint.FI_OPT_MIN_MULTI_RECV, minMultiRecv,
                "FI_OPT_MIN_MULTI_RECV");
            return f;
        } catch (RuntimeException | Error e) {
            try {
                f.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Opens the completion queue, with a file descriptor to wait on if {@code waitFd} and the provider offers one
     * (shm and the utility providers over sockets do; a provider that refuses gets a queue without).
     */
    private void openCq(long cqSize, boolean waitFd) {
        if (waitFd) {
            try {
                cq = FiDomain.openCq(domain, cqSize, FiEq.FI_CQ_FORMAT_DATA, FiEq.FI_WAIT_FD);
            } catch (OfiException refused) {
                cq = MemorySegment.NULL;
            }
            if (!cq.equals(MemorySegment.NULL)) {
                try {
                    cqWaitFd = FiEq.waitFd(cq); // udp;ofi_rxd opens the queue, then cannot name its descriptor
                } catch (OfiException refused) {
                    Fabric.close(cq, "completion queue");
                    cq = MemorySegment.NULL;
                }
            }
        }
        if (cq.equals(MemorySegment.NULL)) {
            cq = FiDomain.openCq(domain, cqSize, FiEq.FI_CQ_FORMAT_DATA, FiEq.FI_WAIT_NONE);
        }
        closers.add(() -> Fabric.close(cq, "completion queue"));
    }

    boolean requires(int mrModeBit) {
        return (mrMode & mrModeBit) != 0;
    }

    /**
     * Registers {@code memory} for every access (bound to the endpoint where the provider asks for it). With
     * {@code withFabric} it is closed by {@link #close()}, before the endpoint; otherwise the caller closes it.
     */
    MemorySegment register(MemorySegment memory, long requestedKey, boolean withFabric) {
        return register(memory, FiDomain.FI_MR_ACCESS_ALL, requestedKey, withFabric);
    }

    /** {@link #register(MemorySegment, long, boolean)} with the {@code access} flags given. */
    MemorySegment register(MemorySegment memory, long access, long requestedKey, boolean withFabric) {
        final MemorySegment mr = FiDomain.registerMemory(domain, memory, access, requestedKey);
        if (requires(Fabric.FI_MR_ENDPOINT)) {
            try {
                Fabric.bind(mr, ep, 0, "fi_mr_bind");
                Fabric.control(mr, Fabric.FI_ENABLE, MemorySegment.NULL, "fi_mr_enable");
            } catch (RuntimeException e) {
                Fabric.close(mr, "memory region");
                throw e;
            }
        }
        if (withFabric) {
            closers.add(() -> Fabric.close(mr, "memory region"));
        }
        return mr;
    }

    /** Closes what was opened, newest first; the first failure is thrown after every close was tried. */
    @Override
    public void close() {
        RuntimeException failure = null;
        for (int i = closers.size() - 1; i >= 0; i--) {
            try {
                closers.get(i).run();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        closers.clear();
        Fabric.freeInfo(infoList);
        if (failure != null) {
            throw failure;
        }
    }

    // ------------------------------------------------------------------------------------------------ choosing

    /** What {@code fi_getinfo} offers: (provider, domain) per entry, for error messages and {@code Ofi}. */
    static List<String> offered(String provider, String node) {
        final List<String> names = new ArrayList<>();
        final MemorySegment list = query(provider, node);
        for (FiInfo i = first(list); i != null; i = i.next()) {
            names.add(describe(i));
        }
        if (!list.equals(MemorySegment.NULL)) {
            Fabric.freeInfo(list);
        }
        return names;
    }

    static String describe(FiInfo info) {
        return info.provider() + " (domain " + info.domainName() + ")";
    }

    /** The head of a list {@code fi_getinfo} returned, or null for none. */
    private static FiInfo first(MemorySegment list) {
        return list.equals(MemorySegment.NULL) ? null : new FiInfo(list);
    }

    private static OfiFabric choose(String provider, String node) {
        MemorySegment list = query(provider, node);
        if (list.equals(MemorySegment.NULL)) {
            throw new OfiException(noProvider(provider));
        }
        FiInfo best = null;
        int bestRank = Integer.MAX_VALUE;
        for (FiInfo i = first(list); i != null; i = i.next()) {
            final int rank = provider != null ? 0 : preference(i.provider());
            if (rank < bestRank) {
                best = i;
                bestRank = rank;
            }
        }
        OfiFabric chosen = new OfiFabric(list, best);
        // asked only now, so that neither decides the provider: FI_SOURCE lets the conduit drop messages from
        // endpoints outside the job's address vector, FI_ATOMIC gives remote atomics to the NIC
        if (!chosen.sourceKnown) {
            chosen = withCaps(chosen, node, Fabric.FI_SOURCE);
        }
        chosen = withCaps(chosen, node, Fabric.FI_ATOMIC | chosen.extraCaps());
        if (node != null && "shm".equals(chosen.provider)) {
            // shm takes the node as its region's name, the same for every rank: let it name the region per process
            final MemorySegment anywhere = query("shm", null, chosen.extraCaps());
            if (!anywhere.equals(MemorySegment.NULL)) {
                Fabric.freeInfo(chosen.infoList);
                chosen = new OfiFabric(anywhere, new FiInfo(anywhere));
            }
        }
        return chosen;
    }

    /** The optional capabilities this choice has ({@code FI_SOURCE}, {@code FI_ATOMIC}), to ask for again. */
    private long extraCaps() {
        return (sourceKnown ? Fabric.FI_SOURCE : 0) | (atomics ? Fabric.FI_ATOMIC : 0);
    }

    /** The same provider and domain as {@code chosen} with {@code caps} too, if it offers them; else {@code chosen}. */
    private static OfiFabric withCaps(OfiFabric chosen, String node, long caps) {
        final MemorySegment list = query(chosen.provider, node, caps);
        for (FiInfo i = first(list); i != null; i = i.next()) {
            if (describe(i).equals(describe(chosen.info))) {
                Fabric.freeInfo(chosen.infoList);
                return new OfiFabric(list, i);
            }
        }
        if (!list.equals(MemorySegment.NULL)) {
            Fabric.freeInfo(list);
        }
        return chosen;
    }

    private static String noProvider(String provider) {
        return "no libfabric provider offers an RDM endpoint with FI_MSG, FI_RMA and FI_MULTI_RECV"
            + (provider == null ? "" : " under the name '" + provider + "' (" + OfiSettings.PROVIDER + "/"
            + OfiSettings.FI_PROVIDER + ")") + "; providers that do here: "
            + (provider == null ? "none" : offered(null, null));
    }

    private static int preference(String provider) {
        final int at = PREFERENCE.indexOf(provider);
        return at < 0 ? PREFERENCE.size() : at;
    }

    /** {@code fi_getinfo} with the conduit's hints, bound to {@code node} when a provider can be, else anywhere. */
    static MemorySegment query(String provider, String node) {
        return query(provider, node, 0);
    }

    /** As {@link #query(String, String)}, asking for {@code extraCaps} too. */
    static MemorySegment query(String provider, String node, long extraCaps) {
        final MemorySegment hints = hints(provider, extraCaps);
        try {
            final int version = Math.min(Fabric.fiVersion(), Fabric.version(Fabric.FI_MAJOR_VERSION,
                Fabric.FI_MINOR_VERSION));
            MemorySegment list = node == null ? MemorySegment.NULL
                : Fabric.getInfo(version, node, null, Fabric.FI_SOURCE, hints);
            if (list.equals(MemorySegment.NULL)) {
                list = Fabric.getInfo(version, null, null, 0, hints);
            }
            return list;
        } finally {
            Fabric.freeInfo(hints);
        }
    }

    private static MemorySegment hints(String provider, long extraCaps) {
        final MemorySegment hints = Fabric.dupInfo(MemorySegment.NULL);
        // the conduit serialises its endpoint, but shm 1.17 shares state between the domains of one process (ranks
        // as threads of one JVM) that only FI_THREAD_SAFE protects
        final FiInfo view = new FiInfo(hints).caps(REQUIRED_CAPS | extraCaps).mode(SUPPORTED_MODES)
            .endpointType(Fabric.FI_EP_RDM).mrMode(SUPPORTED_MR_MODES).threading(Fabric.FI_THREAD_SAFE)
            .avType(Fabric.FI_AV_TABLE);
        if (provider != null) {
            // fi_freeinfo frees the string: it must come from malloc
            try (Arena arena = Arena.ofConfined()) {
                view.providerName((MemorySegment) STRDUP.invokeExact(arena.allocateFrom(provider)));
            } catch (Throwable t) {
                Fabric.freeInfo(hints);
                throw new OfiException("strdup of the provider name failed: " + t);
            }
        }
        return hints;
    }
}
