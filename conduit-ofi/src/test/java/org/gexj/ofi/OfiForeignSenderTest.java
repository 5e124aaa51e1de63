package org.gexj.ofi;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.Config;
import org.gexj.ofi.ffm.Fabric;
import org.gexj.ofi.ffm.FiDomain;
import org.gexj.ofi.ffm.FiEndpoint;
import org.gexj.ofi.ffm.FiEq;
import org.gexj.ofi.ffm.FiErrno;
import org.gexj.ofi.wire.OfiAddressCodec;
import org.gexj.rdma.wire.RdmaHeaderFlyweight;
import org.gexj.spi.Bootstrap;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.JobHealth;
import org.gexj.testkit.ThreadBootstrap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a process outside the job can do to a rank's endpoint on tcp;ofi_rxm: it opens its own libfabric endpoint
 * (the FFM bindings, in this JVM, as any program linked with libfabric could), inserts the rank's address (which it
 * learnt here from the job's address exchange; on a host, the rank's listening TCP port is as easy to find), and
 * sends it messages: one with a well-formed header claiming to come from rank 0 carrying a frame, and one of garbage.
 * The rank's conduit reads the source of each message from the provider ({@code FI_SOURCE},
 * {@code fi_cq_readfrom}): what comes from no address of its address vector ({@code FI_ADDR_NOTAVAIL}) is dropped
 * and counted ({@code ofi.dropped.foreign}), never delivered; the job's own messages still are.
 */
class OfiForeignSenderTest {
    private static final String PROVIDER = "tcp;ofi_rxm";
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(20);

    /** Records what the job's first allgather exchanged: the ranks' endpoint addresses. */
    private static final class Recording implements Bootstrap {
        private final ThreadBootstrap inner;
        final AtomicReference<byte[][]> first = new AtomicReference<>();

        Recording(ThreadBootstrap inner) {
            this.inner = inner;
        }

        @Override
        public int rank() {
            return inner.rank();
        }

        @Override
        public int size() {
            return inner.size();
        }

        @Override
        public InetAddress localAddress() {
            return inner.localAddress();
        }

        @Override
        public byte[][] allgather(byte[] mine) {
            final byte[][] all = inner.allgather(mine);
            first.compareAndSet(null, all);
            return all;
        }

        @Override
        public void abort(String reason) {
            inner.abort(reason);
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    /** Frames a rank's conduit delivered. */
    private static final class Frames implements ConduitListener {
        final List<byte[]> got = new ArrayList<>();

        @Override
        public void onFrame(int channel, DirectBuffer buffer, int offset, int length) {
            final byte[] frame = new byte[length];
            buffer.getBytes(offset, frame);
            got.add(frame);
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void messagesFromAnEndpointOutsideTheJobAreDroppedAndCounted() throws Exception {
        final String jobId = "gexjofiforeign-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        final ThreadBootstrap[] bootstraps = ThreadBootstrap.job(2);
        final Recording[] recording = {new Recording(bootstraps[0]), new Recording(bootstraps[1])};
        final Map<String, String> env = Map.of("GEX_OFI_PROVIDER", PROVIDER);
        // a thread per rank: the common pool has one thread on 2 cores, and opening is collective
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        final List<CompletableFuture<OfiConduit>> opening = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            final int rank = r;
            opening.add(CompletableFuture.supplyAsync(() -> OfiConduit.open(new ConduitContext(rank, 2, jobId,
                recording[rank], Config.of(env), new JobHealth())), threads));
        }
        final OfiConduit[] ranks = {opening.get(0).get(30, TimeUnit.SECONDS), opening.get(1).get(30, TimeUnit.SECONDS)};
        try (Arena arena = Arena.ofShared(); Outsider outsider = new Outsider()) {
            assertEquals(1L, ranks[1].counters().get("ofi.source-checked"), PROVIDER + " names each message's"
                + " source (FI_SOURCE)");
            final byte[] rank1 = OfiAddressCodec.decodeEndpoint(recording[1].first.get()[1], 1).name();
            final long target = outsider.insert(arena, rank1);
            final Frames frames = new Frames();
            final Runnable ranksPoll = () -> {
                ranks[0].poll(frames, Conduit.ALL_CHANNELS, 16);
                ranks[1].poll(frames, Conduit.ALL_CHANNELS, 16);
            };
            // 1: a well-formed frame message that says it is from rank 0
            final MemorySegment forged = arena.allocate(64, 64);
            final UnsafeBuffer b = new UnsafeBuffer(forged.address(), 64);
            new RdmaHeaderFlyweight().wrap(b, 0).write(RdmaHeaderFlyweight.KIND_FRAME, Conduit.REQUEST, 0, 0, 0);
            b.putLong(RdmaHeaderFlyweight.LENGTH, 0x666f726569676eL); // "foreign"
            outsider.inject(forged, RdmaHeaderFlyweight.LENGTH + 8, target, ranksPoll);
            // 2: garbage
            final MemorySegment garbage = arena.allocate(40, 64);
            garbage.fill((byte) 0x5a);
            outsider.inject(garbage, 40, target, ranksPoll);
            final long deadline = System.nanoTime() + WAIT_NS;
            while (ranks[1].counters().getOrDefault("ofi.dropped.foreign", 0L) < 2 && frames.got.isEmpty()) {
                assertTrue(System.nanoTime() < deadline, "rank 1 after 20 s: " + ranks[1].counters());
                outsider.progress();
                ranks[0].poll(frames, Conduit.ALL_CHANNELS, 16);
                ranks[1].poll(frames, Conduit.ALL_CHANNELS, 16);
            }
            pollAWhile(ranks, frames, outsider, 100);
            assertEquals(List.of(), frames.got.stream().map(HexFormat.of()::formatHex).toList(),
                "frames delivered from outside the job");
            assertEquals(2L, ranks[1].counters().get("ofi.dropped.foreign"), ranks[1].counters().toString());
            // the job's own messages still arrive
            final org.gexj.spi.Claim claim = new org.gexj.spi.Claim();
            assertEquals(Conduit.OK, ranks[0].claim(claim, 1, Conduit.REQUEST, 8));
            claim.buffer().putLong(claim.offset(), 42L);
            ranks[0].commit(claim);
            while (frames.got.isEmpty()) {
                assertTrue(System.nanoTime() < deadline + WAIT_NS, "rank 0's frame did not arrive");
                ranks[0].poll(frames, Conduit.ALL_CHANNELS, 16);
                ranks[1].poll(frames, Conduit.ALL_CHANNELS, 16);
            }
            assertEquals(1, frames.got.size());
            assertEquals(0L, ranks[0].counters().get("ofi.dropped.foreign"));
        } finally {
            final List<CompletableFuture<Void>> closing = new ArrayList<>();
            for (OfiConduit c : ranks) {
                closing.add(CompletableFuture.runAsync(c::close, threads));
            }
            for (CompletableFuture<Void> f : closing) {
                f.get(30, TimeUnit.SECONDS);
            }
            threads.shutdown();
        }
    }

    private static void pollAWhile(OfiConduit[] ranks, Frames frames, Outsider outsider, long millis) {
        final long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            outsider.progress();
            ranks[0].poll(frames, Conduit.ALL_CHANNELS, 16);
            ranks[1].poll(frames, Conduit.ALL_CHANNELS, 16);
        }
    }

    /** A libfabric endpoint of no job: its own fabric, domain, CQ and address vector. */
    private static final class Outsider implements AutoCloseable {
        private final Arena arena = Arena.ofShared();
        private final List<Runnable> closers = new ArrayList<>();
        private final MemorySegment info;
        private final MemorySegment av;
        private final MemorySegment cq;
        private final MemorySegment ep;
        private final MemorySegment injectFn;
        private final MemorySegment readFn;
        private final MemorySegment entries = arena.allocate(FiEq.FI_CQ_DATA_ENTRY.byteSize() * 8, 8);
        private final MemorySegment errorEntry = arena.allocate(FiEq.FI_CQ_ERR_ENTRY);

        Outsider() {
            info = OfiFabric.query(PROVIDER, null);
            assertTrue(!info.equals(MemorySegment.NULL), PROVIDER + " is not available");
            closers.add(() -> Fabric.freeInfo(info));
            final MemorySegment fabric = Fabric.openFabric(Fabric.attr(info, Fabric.INFO_FABRIC_ATTR,
                Fabric.FI_FABRIC_ATTR));
            closers.add(() -> Fabric.close(fabric, "fabric"));
            final MemorySegment domain = Fabric.openDomain(fabric, info);
            closers.add(() -> Fabric.close(domain, "domain"));
            final MemorySegment cqAttr = arena.allocate(FiEq.FI_CQ_ATTR);
            cqAttr.set(JAVA_LONG, FiEq.CQ_ATTR_SIZE, 64);
            cqAttr.set(JAVA_INT, FiEq.CQ_ATTR_FORMAT, FiEq.FI_CQ_FORMAT_DATA);
            cqAttr.set(JAVA_INT, FiEq.CQ_ATTR_WAIT_OBJ, FiEq.FI_WAIT_NONE);
            cq = FiDomain.openCq(domain, cqAttr);
            closers.add(() -> Fabric.close(cq, "cq"));
            final MemorySegment avAttr = arena.allocate(FiDomain.FI_AV_ATTR);
            avAttr.set(JAVA_INT, FiDomain.AV_ATTR_TYPE, Fabric.FI_AV_TABLE);
            avAttr.set(JAVA_LONG, FiDomain.AV_ATTR_COUNT, 4);
            av = FiDomain.openAv(domain, avAttr);
            closers.add(() -> Fabric.close(av, "av"));
            ep = FiDomain.openEndpoint(domain, info);
            closers.add(() -> Fabric.close(ep, "endpoint"));
            FiEndpoint.bind(ep, cq, Fabric.FI_TRANSMIT | Fabric.FI_RECV);
            FiEndpoint.bind(ep, av, 0);
            FiEndpoint.enable(ep);
            injectFn = FiEndpoint.injectFunction(ep);
            readFn = FiEq.readFunction(cq);
        }

        long insert(Arena scratch, byte[] name) {
            return FiDomain.insertAddress(av, scratch.allocateFrom(JAVA_BYTE, name));
        }

        /** {@code fi_inject}, retried while the provider says {@code -FI_EAGAIN} (a connection being made). */
        void inject(MemorySegment message, long length, long target, Runnable ranksPoll) {
            final long deadline = System.nanoTime() + WAIT_NS;
            long rc;
            while ((rc = FiEndpoint.inject(injectFn, ep, message.address(), length, target)) == -FiErrno.FI_EAGAIN) {
                assertTrue(System.nanoTime() < deadline, "fi_inject stayed -FI_EAGAIN for 20 s");
                progress();
                ranksPoll.run(); // the rank accepts the connection as it progresses
            }
            assertEquals(0, rc, "fi_inject: " + FiErrno.strerror((int) -rc));
        }

        /** Drives the provider (manual progress): reads the CQ. */
        void progress() {
            final long n = FiEq.read(readFn, cq, entries, 8);
            if (n == -FiErrno.FI_EAVAIL) {
                FiEq.readError(cq, errorEntry);
            }
        }

        @Override
        public void close() {
            for (int i = closers.size() - 1; i >= 0; i--) {
                closers.get(i).run();
            }
            arena.close();
        }
    }
}
