package org.gexj.ofi;

import org.gexj.ofi.ffm.FiDomain;
import org.gexj.ofi.ffm.FiEndpoint;
import org.gexj.ofi.ffm.FiEq;
import org.gexj.ofi.ffm.Fabric;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

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
    final MemorySegment info;
    final String provider;
    final String domainName;
    final int mrMode;
    final long cqDataSize;
    final long maxMessageSize;
    final long injectSize;
    /** The endpoint has {@code FI_SOURCE}: its CQ names each message's source ({@code fi_cq_readfrom}). */
    final boolean sourceKnown;
    MemorySegment fabric = MemorySegment.NULL;
    MemorySegment domain = MemorySegment.NULL;
    MemorySegment cq = MemorySegment.NULL;
    MemorySegment av = MemorySegment.NULL;
    MemorySegment ep = MemorySegment.NULL;
    private final List<Runnable> closers = new ArrayList<>();

    private OfiFabric(MemorySegment infoList, MemorySegment info) {
        this.infoList = infoList;
        this.info = info;
        final MemorySegment fabricAttr = Fabric.attr(info, Fabric.INFO_FABRIC_ATTR, Fabric.FI_FABRIC_ATTR);
        final MemorySegment domainAttr = Fabric.attr(info, Fabric.INFO_DOMAIN_ATTR, Fabric.FI_DOMAIN_ATTR);
        this.provider = Fabric.string(fabricAttr.get(ADDRESS, Fabric.FABRIC_PROV_NAME));
        this.domainName = Fabric.string(domainAttr.get(ADDRESS, Fabric.DOMAIN_NAME));
        this.mrMode = domainAttr.get(JAVA_INT, Fabric.DOMAIN_MR_MODE);
        this.cqDataSize = domainAttr.get(JAVA_LONG, Fabric.DOMAIN_CQ_DATA_SIZE);
        final long max = Fabric.attr(info, Fabric.INFO_EP_ATTR, Fabric.FI_EP_ATTR).get(JAVA_LONG, Fabric.EP_MAX_MSG_SIZE);
        this.maxMessageSize = max < 0 ? Long.MAX_VALUE : max; // size_t: 2^64-1 means unlimited
        this.injectSize = Fabric.attr(info, Fabric.INFO_TX_ATTR, Fabric.FI_TX_ATTR).get(JAVA_LONG, Fabric.TX_INJECT_SIZE);
        this.sourceKnown = (info.get(JAVA_LONG, Fabric.INFO_CAPS) & Fabric.FI_SOURCE) != 0;
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
            f.fabric = Fabric.openFabric(Fabric.attr(f.info, Fabric.INFO_FABRIC_ATTR, Fabric.FI_FABRIC_ATTR));
            f.closers.add(() -> Fabric.close(f.fabric, "fabric"));
            f.domain = Fabric.openDomain(f.fabric, f.info);
            f.closers.add(() -> Fabric.close(f.domain, "domain"));
            try (Arena arena = Arena.ofConfined()) {
                final MemorySegment cqAttr = arena.allocate(FiEq.FI_CQ_ATTR);
                cqAttr.set(JAVA_LONG, FiEq.CQ_ATTR_SIZE, cqSize);
                cqAttr.set(JAVA_INT, FiEq.CQ_ATTR_FORMAT, FiEq.FI_CQ_FORMAT_DATA);
                cqAttr.set(JAVA_INT, FiEq.CQ_ATTR_WAIT_OBJ, FiEq.FI_WAIT_NONE);
                f.cq = FiDomain.openCq(f.domain, cqAttr);
                f.closers.add(() -> Fabric.close(f.cq, "completion queue"));
                final MemorySegment avAttr = arena.allocate(FiDomain.FI_AV_ATTR);
                avAttr.set(JAVA_INT, FiDomain.AV_ATTR_TYPE, Fabric.FI_AV_TABLE);
                avAttr.set(JAVA_LONG, FiDomain.AV_ATTR_COUNT, ranks);
                f.av = FiDomain.openAv(f.domain, avAttr);
                f.closers.add(() -> Fabric.close(f.av, "address vector"));
            }
            if ("shm".equals(f.provider)) {
                ShmLeftovers.removeOnce();
            }
            f.ep = FiDomain.openEndpoint(f.domain, f.info);
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

    boolean requires(int mrModeBit) {
        return (mrMode & mrModeBit) != 0;
    }

    /**
     * Registers {@code memory} for every access (bound to the endpoint where the provider asks for it). With
     * {@code withFabric} it is closed by {@link #close()}, before the endpoint; otherwise the caller closes it.
     */
    MemorySegment register(MemorySegment memory, long requestedKey, boolean withFabric) {
        final MemorySegment mr = FiDomain.registerMemory(domain, memory, FiDomain.FI_MR_ACCESS_ALL, requestedKey);
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
        for (MemorySegment i = list; !i.equals(MemorySegment.NULL);
             i = i.get(ADDRESS, Fabric.INFO_NEXT).reinterpret(Fabric.FI_INFO.byteSize())) {
            names.add(describe(i));
        }
        if (!list.equals(MemorySegment.NULL)) {
            Fabric.freeInfo(list);
        }
        return names;
    }

    static String describe(MemorySegment info) {
        final MemorySegment fabricAttr = Fabric.attr(info, Fabric.INFO_FABRIC_ATTR, Fabric.FI_FABRIC_ATTR);
        final MemorySegment domainAttr = Fabric.attr(info, Fabric.INFO_DOMAIN_ATTR, Fabric.FI_DOMAIN_ATTR);
        return Fabric.string(fabricAttr.get(ADDRESS, Fabric.FABRIC_PROV_NAME)) + " (domain "
            + Fabric.string(domainAttr.get(ADDRESS, Fabric.DOMAIN_NAME)) + ")";
    }

    private static OfiFabric choose(String provider, String node) {
        MemorySegment list = query(provider, node);
        if (list.equals(MemorySegment.NULL)) {
            throw new OfiException(noProvider(provider));
        }
        MemorySegment best = MemorySegment.NULL;
        int bestRank = Integer.MAX_VALUE;
        for (MemorySegment i = list; !i.equals(MemorySegment.NULL);
             i = i.get(ADDRESS, Fabric.INFO_NEXT).reinterpret(Fabric.FI_INFO.byteSize())) {
            final String name = Fabric.string(Fabric.attr(i, Fabric.INFO_FABRIC_ATTR, Fabric.FI_FABRIC_ATTR)
                .get(ADDRESS, Fabric.FABRIC_PROV_NAME));
            final int rank = provider != null ? 0 : preference(name);
            if (rank < bestRank) {
                best = i;
                bestRank = rank;
            }
        }
        OfiFabric chosen = new OfiFabric(list, best);
        if (!chosen.sourceKnown) {
            // the chosen provider and domain again with FI_SOURCE, if it has it: the conduit then drops messages
            // from endpoints outside the job's address vector (asked only now, so it never decides the provider)
            final MemorySegment sourced = query(chosen.provider, node, Fabric.FI_SOURCE);
            MemorySegment same = MemorySegment.NULL;
            for (MemorySegment i = sourced; !i.equals(MemorySegment.NULL) && same.equals(MemorySegment.NULL);
                 i = i.get(ADDRESS, Fabric.INFO_NEXT).reinterpret(Fabric.FI_INFO.byteSize())) {
                if (describe(i).equals(describe(best))) {
                    same = i;
                }
            }
            if (!same.equals(MemorySegment.NULL)) {
                Fabric.freeInfo(list);
                list = sourced;
                chosen = new OfiFabric(list, same);
            } else if (!sourced.equals(MemorySegment.NULL)) {
                Fabric.freeInfo(sourced);
            }
        }
        if (node != null && "shm".equals(chosen.provider)) {
            // shm takes the node as its region's name, the same for every rank: let it name the region per process
            final MemorySegment anywhere = query("shm", null, chosen.sourceKnown ? Fabric.FI_SOURCE : 0);
            if (!anywhere.equals(MemorySegment.NULL)) {
                Fabric.freeInfo(list);
                list = anywhere;
                chosen = new OfiFabric(list, list);
            }
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
        hints.set(JAVA_LONG, Fabric.INFO_CAPS, REQUIRED_CAPS | extraCaps);
        hints.set(JAVA_LONG, Fabric.INFO_MODE, SUPPORTED_MODES);
        Fabric.attr(hints, Fabric.INFO_EP_ATTR, Fabric.FI_EP_ATTR).set(JAVA_INT, Fabric.EP_TYPE, Fabric.FI_EP_RDM);
        final MemorySegment domainAttr = Fabric.attr(hints, Fabric.INFO_DOMAIN_ATTR, Fabric.FI_DOMAIN_ATTR);
        domainAttr.set(JAVA_INT, Fabric.DOMAIN_MR_MODE, SUPPORTED_MR_MODES);
        // the conduit serialises its endpoint, but shm 1.17 shares state between the domains of one process (ranks
        // as threads of one JVM) that only FI_THREAD_SAFE protects
        domainAttr.set(JAVA_INT, Fabric.DOMAIN_THREADING, Fabric.FI_THREAD_SAFE);
        domainAttr.set(JAVA_INT, Fabric.DOMAIN_AV_TYPE, Fabric.FI_AV_TABLE);
        if (provider != null) {
            // fi_freeinfo frees the string: it must come from malloc
            try (Arena arena = Arena.ofConfined()) {
                final MemorySegment copy = (MemorySegment) STRDUP.invokeExact(arena.allocateFrom(provider));
                Fabric.attr(hints, Fabric.INFO_FABRIC_ATTR, Fabric.FI_FABRIC_ATTR)
                    .set(ADDRESS, Fabric.FABRIC_PROV_NAME, copy);
            } catch (Throwable t) {
                Fabric.freeInfo(hints);
                throw new OfiException("strdup of the provider name failed: " + t);
            }
        }
        return hints;
    }
}
