package org.gexj.testkit;

import org.gexj.BufferDescriptor;
import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Flags;
import org.gexj.Lc;
import org.gexj.Registration;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.SrcDesc;
import org.gexj.rma.AtomicDomain;
import org.gexj.rma.AtomicOp;
import org.gexj.rma.AtomicType;
import org.gexj.rma.Completion;
import org.gexj.rma.Pwc;
import org.gexj.rma.Rma;
import org.gexj.rma.Vis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data path allocates nothing, run against every conduit (part 2 of 2: the paths and the tests; part 1,
 * {@link AllocationMeasureKit}, measures): after warm-up, AM round trips of every category and form (a Medium reply
 * from the delivered payload too; 4 KiB Longs as they travel by default, packed on a conduit that does not cross-map
 * segments, and 64 KiB Longs by the conduit's own protocol for them; Short, Medium and Long to rank 0 itself), RMA
 * calls of every completion style, remote atomics and non-contiguous RMA allocate no bytes per operation on either
 * the initiator's or the target's thread, and neither do all those paths taken in turn. Where the conduit's
 * capabilities offer them, further runs ({@link Run}) measure Longs reassembled at the target (put-with-immediate plus
 * envelope), Longs by put-sync-send, and RMA over active messages.
 *
 * <p>A conduit module subclasses the kit and says how to select its conduit ({@link #environment()}); it may change
 * the operation counts ({@link #measured()}, {@link #pathWarmup()}) and measure every path again under settings of
 * its own ({@link #assertEveryPathAllocatesNothing}); it names the runs its conduit cannot take
 * ({@link #refusedRuns()}), which are then checked refused instead of measured.
 */
public abstract class AllocationKit extends AllocationMeasureKit {
    /** Where the atomics paths operate in rank 1's segment: past the RMA paths' 512 bytes at 8192. */
    private static final long ATOMIC_AT = 16_384;
    /** Where the VIS paths operate in rank 1's segment. */
    private static final long VIS_AT = 20_480;

    @Test
    @Timeout(value = 170, unit = TimeUnit.SECONDS)
    void everyAmFormAndRmaCompletionAllocatesNothingOnEitherSide() {
        final Measurement m = measurePaths(Map.of(), null, (client, segment) -> {
            // on a cross-mapped conduit a Long is a memory copy; elsewhere 4 KiB is within every default packed limit
            final String expected = client.capabilities().crossMapped() ? "copy" : "packed";
            assertEquals(expected, Am.of(client).longProtocol(LONG),
                "a 4 KiB Long travels " + expected + " by default");
            return everyPath(client, segment);
        });
        assertNoPathAllocates(m);
    }

    @Test
    @Timeout(value = 170, unit = TimeUnit.SECONDS)
    void reassembledLongsAllocateNothingOnEitherSide() {
        final Measurement m = measurePaths(Run.REASSEMBLY.settings, Run.REASSEMBLY, (client, segment) -> {
            assertEquals("reassembly", Am.of(client).longProtocol(LONG),
                "GEX_AMLONG_PACKED_MAX=0 reassembles every Long");
            return longPaths(client, segment);
        });
        assertNoPathAllocates(m);
        assertTrue(m.refused() != null || m.bytes().size() >= 12,
            "the reassembly run measured the Long paths on both ranks: " + m.bytes().keySet());
    }

    @Test
    @Timeout(value = 170, unit = TimeUnit.SECONDS)
    void putSyncSendLongsAllocateNothingOnEitherSide() {
        final Measurement m = measurePaths(Run.PUT_SYNC_SEND.settings, Run.PUT_SYNC_SEND, (client, segment) -> {
            assertEquals("putsyncsend", Am.of(client).longProtocol(LONG), "GEX_AMLONG_PACKED_MAX=0 puts every Long");
            return longPaths(client, segment);
        });
        assertNoPathAllocates(m);
        assertTrue(m.refused() != null || m.bytes().size() >= 12,
            "the put-sync-send run measured the Long paths on both ranks: " + m.bytes().keySet());
    }

    @Test
    @Timeout(value = 170, unit = TimeUnit.SECONDS)
    void rmaOverActiveMessagesAllocatesNothingOnEitherSide() {
        final Measurement m = measurePaths(Run.RMA_OVER_AM.settings, Run.RMA_OVER_AM, (client, segment) -> {
            assertTrue(Rma.of(client).overActiveMessages(), "GEX_RMA_OVER_AM=1 puts RMA over AM");
            return rmaPaths(client);
        });
        assertNoPathAllocates(m);
    }

    /**
     * Measures every AM and RMA path, as the first test does, with {@code settings} on top of the environment: for a
     * conduit's own variants (a smaller datagram, another Long protocol with its default packed limit).
     */
    protected final void assertEveryPathAllocatesNothing(Map<String, String> settings) {
        assertNoPathAllocates(measurePaths(settings, null, this::everyPath));
    }

    private List<Path> everyPath(Client client, MemorySegment segment) {
        final List<Path> paths = amPaths(client, segment);
        paths.addAll(rmaPaths(client));
        return paths;
    }

    private List<Path> longPaths(Client client, MemorySegment segment) {
        final List<Path> longs = new ArrayList<>();
        for (Path path : amPaths(client, segment)) {
            if (path.name().contains("Long")) {
                longs.add(path);
            }
        }
        return longs;
    }

    /**
     * AM requests and their replies of every category, in every form, with every local-completion option; the Longs'
     * names say how they travel in this job.
     */
    private static List<Path> amPaths(Client client, MemorySegment segment) {
        final Am am = Am.of(client);
        final MemorySegment src = Arena.ofShared().allocate(LARGE_LONG);
        final Counter replies = new Counter();
        final int[] args = new int[ARGS];
        final int[] replyArgs = new int[ARGS];
        final Lc mediumLc = Lc.event();
        final Lc longLc = Lc.event();
        final int pongShort = am.register(AmHandler.shortReply(1, (t, a) -> replies.value++));
        final int pongMedium = am.register(AmHandler.mediumReply(1, (t, p, a) -> replies.value++));
        final int pongLong = am.register(AmHandler.longReply(1, (t, p, a) -> replies.value++));
        final int pongShortN = am.register(AmHandler.shortReply(ARGS, (t, a) -> replies.value++));
        final int pongMediumN = am.register(AmHandler.mediumReply(ARGS, (t, p, a) -> replies.value++));
        final int pongLongN = am.register(AmHandler.longReply(ARGS, (t, p, a) -> replies.value++));
        final int pingShort = am.register(AmHandler.shortRequest(1, (t, a) -> t.replyShort(pongShort, a.get(0))));
        final int pingMedium = am.register(AmHandler.mediumRequest(1,
            (t, p, a) -> t.replyMedium(pongMedium, segment, 0, p.length(), Lc.NOW, a.get(0))));
        final int echoMedium = am.register(AmHandler.mediumRequest(1,
            (t, p, a) -> t.replyMedium(pongMedium, p, 0, p.length(), Lc.NOW, a.get(0))));
        final int pingLong = am.register(AmHandler.longRequest(1,
            (t, p, a) -> t.replyLong(pongLong, segment, p.segmentOffset(), p.length(), 4096, Lc.NOW, a.get(0))));
        final int pingShortN = am.register(AmHandler.shortRequest(ARGS, (t, a) -> {
            a.copyTo(replyArgs);
            checkSent(t.replyShort(pongShortN, Flags.IMMEDIATE, replyArgs, ARGS));
        }));
        final int pingMediumN = am.register(AmHandler.mediumRequest(ARGS, (t, p, a) -> {
            a.copyTo(replyArgs);
            checkSent(t.replyMedium(pongMediumN, segment, 0, p.length(), Lc.NOW, Flags.IMMEDIATE, replyArgs, ARGS));
        }));
        final int pingLongN = am.register(AmHandler.longRequest(ARGS, (t, p, a) -> {
            a.copyTo(replyArgs);
            checkSent(t.replyLong(pongLongN, segment, p.segmentOffset(), p.length(), 4096, Lc.NOW, Flags.IMMEDIATE,
                replyArgs, ARGS));
        }));
        // negotiated-payload requests are answered by negotiated-payload replies with the same kind of buffer
        final int npamMediumLibrary = am.register(AmHandler.mediumRequest(1, (t, p, a) -> {
            final SrcDesc sd = t.prepareReplyMedium(null, p.length(), p.length(), null, 0, 1);
            sd.buffer().putInt(0, a.get(0));
            sd.commit(pongMedium, p.length(), a.get(0));
        }));
        final int npamMediumClient = am.register(AmHandler.mediumRequest(1, (t, p, a) ->
            t.prepareReplyMedium(segment, p.length(), p.length(), Lc.NOW, 0, 1)
                .commit(pongMedium, p.length(), a.get(0))));
        final int npamLongLibrary = am.register(AmHandler.longRequest(1, (t, p, a) -> {
            final SrcDesc sd = t.prepareReplyLong(null, p.length(), p.length(), 4096, null, 0, 1);
            sd.buffer().putInt(0, a.get(0));
            sd.commit(pongLong, p.length(), a.get(0));
        }));
        final int npamLongClient = am.register(AmHandler.longRequest(1, (t, p, a) ->
            t.prepareReplyLong(segment, p.length(), p.length(), 4096, Lc.NOW, 0, 1)
                .commit(pongLong, p.length(), a.get(0))));

        final String longs = "Long 4 KiB (" + am.longProtocol(LONG) + ")";
        final List<Path> paths = new ArrayList<>();
        paths.add(new Path("Short, 1 arg", i -> {
            am.requestShort(1, pingShort, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path("Medium 256 B, 1 arg, Lc.NOW", i -> {
            am.requestMedium(1, pingMedium, src, 0, 256, Lc.NOW, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path("Medium 256 B, reply from the delivered payload", i -> {
            am.requestMedium(1, echoMedium, src, 0, 256, Lc.NOW, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path(longs + ", 1 arg, Lc.NOW", i -> {
            am.requestLong(1, pingLong, src, 0, LONG, 0, Lc.NOW, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path("Long 64 KiB (" + am.longProtocol(LARGE_LONG) + "), 1 arg, Lc.NOW", i -> {
            am.requestLong(1, pingLong, src, 0, LARGE_LONG, 0, Lc.NOW, i);
            awaitReply(client, replies);
        }));
        // to this rank: the handlers, and the reply handlers, run inside the request call (AmClaims' loopback)
        final int self = client.rank();
        paths.add(new Path("Short to this rank, 1 arg", i -> {
            am.requestShort(self, pingShort, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path("Medium 256 B to this rank, 1 arg, Lc.NOW", i -> {
            am.requestMedium(self, pingMedium, src, 0, 256, Lc.NOW, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path(longs + " to this rank, 1 arg, Lc.NOW", i -> {
            am.requestLong(self, pingLong, src, 0, LONG, 0, Lc.NOW, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path("Short, IMMEDIATE, int[" + ARGS + "]", i -> {
            args[0] = i;
            if (am.requestShort(1, pingShortN, Flags.IMMEDIATE, args, ARGS) != Am.OK) {
                final long deadline = System.nanoTime() + WAIT_NANOS;
                do {
                    pollBeforeRetry(client, deadline);
                } while (am.requestShort(1, pingShortN, Flags.IMMEDIATE, args, ARGS) != Am.OK);
            }
            awaitReply(client, replies);
        }));
        paths.add(new Path("Medium 256 B, IMMEDIATE, int[" + ARGS + "]", i -> {
            args[0] = i;
            if (am.requestMedium(1, pingMediumN, src, 0, 256, Lc.NOW, Flags.IMMEDIATE, args, ARGS) != Am.OK) {
                final long deadline = System.nanoTime() + WAIT_NANOS;
                do {
                    pollBeforeRetry(client, deadline);
                } while (am.requestMedium(1, pingMediumN, src, 0, 256, Lc.NOW, Flags.IMMEDIATE, args, ARGS) != Am.OK);
            }
            awaitReply(client, replies);
        }));
        paths.add(new Path(longs + ", IMMEDIATE, int[" + ARGS + "]", i -> {
            args[0] = i;
            if (am.requestLong(1, pingLongN, src, 0, LONG, 0, Lc.NOW, Flags.IMMEDIATE, args, ARGS) != Am.OK) {
                final long deadline = System.nanoTime() + WAIT_NANOS;
                do {
                    pollBeforeRetry(client, deadline);
                } while (am.requestLong(1, pingLongN, src, 0, LONG, 0, Lc.NOW, Flags.IMMEDIATE, args, ARGS) != Am.OK);
            }
            awaitReply(client, replies);
        }));
        paths.add(new Path("NPAM Medium 256 B, library buffer", i -> {
            final SrcDesc sd = am.prepareRequestMedium(1, null, 256, 256, null, 0, 1);
            sd.buffer().putInt(0, i);
            sd.commit(npamMediumLibrary, 256, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path("NPAM Medium 256 B, client buffer", i -> {
            am.prepareRequestMedium(1, src, 256, 256, Lc.NOW, 0, 1).commit(npamMediumClient, 256, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path("NPAM " + longs + ", library buffer", i -> {
            final SrcDesc sd = am.prepareRequestLong(1, null, LONG, LONG, 0, null, 0, 1);
            sd.buffer().putInt(0, i);
            sd.commit(npamLongLibrary, LONG, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path("NPAM " + longs + ", client buffer", i -> {
            am.prepareRequestLong(1, src, LONG, LONG, 0, Lc.NOW, 0, 1).commit(npamLongClient, LONG, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path("Medium 256 B, Lc.GROUP, nbiWait(Ec.AM)", i -> {
            am.requestMedium(1, pingMedium, src, 0, 256, Lc.GROUP, i);
            am.nbiWait(Ec.AM);
            awaitReply(client, replies);
        }));
        paths.add(new Path(longs + ", Lc.GROUP, nbiWait(Ec.AM)", i -> {
            am.requestLong(1, pingLong, src, 0, LONG, 0, Lc.GROUP, i);
            am.nbiWait(Ec.AM);
            awaitReply(client, replies);
        }));
        paths.add(new Path("Medium 256 B, Lc.event(), lastEvent().await()", i -> {
            am.requestMedium(1, pingMedium, src, 0, 256, mediumLc, i);
            mediumLc.lastEvent().await();
            awaitReply(client, replies);
        }));
        paths.add(new Path(longs + ", Lc.event(), lastEvent().await()", i -> {
            am.requestLong(1, pingLong, src, 0, LONG, 0, longLc, i);
            longLc.lastEvent().await();
            awaitReply(client, replies);
        }));
        return paths;
    }

    /**
     * RMA calls of every completion style: blocking, NB with an event, NBI with nbiWait (the put with
     * {@link Lc#NOW} and with {@link Lc#DEFER}), NBI in an access region; and the blocking, NB and NBI forms to a
     * registration of rank 1's.
     */
    private static List<Path> rmaPaths(Client client) {
        final Rma rma = Rma.of(client);
        final MemorySegment src = Arena.ofShared().allocate(512);
        final MemorySegment dst = Arena.ofShared().allocate(512);
        final Lc putLc = Lc.event();
        final List<Path> paths = new ArrayList<>();
        paths.add(new Path("RMA put + get 512 B, blocking", i -> {
            rma.put(1, 8192, src, 0, 512);
            rma.get(dst, 0, 1, 8192, 512);
        }));
        paths.add(new Path("RMA putNb + getNb 512 B, Lc.NOW, await", i -> {
            rma.putNb(1, 8192, src, 0, 512, Lc.NOW).await();
            rma.getNb(dst, 0, 1, 8192, 512).await();
        }));
        paths.add(new Path("RMA putNb 512 B, Lc.event(), await both", i -> {
            rma.putNb(1, 8192, src, 0, 512, putLc).await();
            putLc.lastEvent().await();
        }));
        paths.add(new Path("RMA putNbi + getNbi 512 B, nbiWait(Ec.PUT | Ec.GET)", i -> {
            rma.putNbi(1, 8192, src, 0, 512, Lc.NOW);
            rma.getNbi(dst, 0, 1, 8192, 512);
            client.nbiWait(Ec.PUT | Ec.GET);
        }));
        paths.add(new Path("RMA putNbi 512 B Lc.DEFER + getNbi, nbiWait(Ec.PUT | Ec.GET)", i -> {
            rma.putNbi(1, 8192, src, 0, 512, Lc.DEFER);
            rma.getNbi(dst, 0, 1, 8192, 512);
            client.nbiWait(Ec.PUT | Ec.GET);
        }));
        paths.add(new Path("RMA putNbi + getNbi 512 B in an access region", i -> {
            client.beginAccessRegion();
            rma.putNbi(1, 8192, src, 0, 512, Lc.NOW);
            rma.getNbi(dst, 0, 1, 8192, 512);
            client.endAccessRegion().await();
        }));
        // rank 1's descriptor as a runtime gets it, with its NIC key where the conduit keys registrations
        final Registration registration = client.register(Arena.ofShared().allocate(512));
        final BufferDescriptor remote = new DescriptorExchange(client).allOf(registration.descriptor())[1];
        paths.add(new Path("RMA put + get 512 B of a registration, blocking", i -> {
            rma.put(remote, 0, src, 0, 512);
            rma.get(dst, 0, remote, 0, 512);
        }));
        paths.add(new Path("RMA putNb + getNb 512 B of a registration, await", i -> {
            rma.putNb(remote, 0, src, 0, 512, Lc.NOW).await();
            rma.getNb(dst, 0, remote, 0, 512).await();
        }));
        paths.add(new Path("RMA putNbi + getNbi 512 B of a registration, nbiWait(Ec.PUT | Ec.GET)", i -> {
            rma.putNbi(remote, 0, src, 0, 512, Lc.NOW);
            rma.getNbi(dst, 0, remote, 0, 512);
            client.nbiWait(Ec.PUT | Ec.GET);
        }));
        paths.addAll(atomicPaths(client, dst));
        paths.addAll(visPaths(client, src, dst));
        paths.addAll(completionPaths(client, src, dst, remote));
        return paths;
    }

    /** Non-contiguous put and get: vector and strided, blocking, NB and NBI, as the conduit moves them by default. */
    private static List<Path> visPaths(Client client, MemorySegment src, MemorySegment dst) {
        final Vis vis = Vis.of(client);
        final long[] remote = {VIS_AT + 300, VIS_AT, VIS_AT + 100};
        final long[] ascending = {VIS_AT, VIS_AT + 100, VIS_AT + 300};
        final long[] local = {0, 128, 256};
        final long[] lengths = {64, 64, 64};
        final long[] strides = {16, 256};
        final long[] localStrides = {8, 32};
        final long[] count = {4, 2};
        final List<Path> paths = new ArrayList<>();
        // out of order, the put's destinations take the chunk plan; in order, the indexed put and the get do not
        paths.add(new Path("VIS vector put, indexed put + vector get of 3 pieces, blocking and NB", i -> {
            vis.putVector(1, 3, remote, lengths, src, 3, local, lengths);
            vis.putIndexed(1, 3, ascending, 64, src, 3, local, 64);
            vis.getVectorNb(dst, 3, local, lengths, 1, 3, remote, lengths).await();
        }));
        paths.add(new Path("VIS strided put + get 2x4 elements of 8 B, NBI nbiWait(Ec.PUT | Ec.GET)", i -> {
            vis.putStridedNbi(1, VIS_AT, strides, src, 0, localStrides, 8, count, 2);
            vis.getStridedNbi(dst, 0, localStrides, 1, VIS_AT, strides, 8, count, 2);
            client.nbiWait(Ec.PUT | Ec.GET);
        }));
        return paths;
    }

    /** Remote atomics, integer and floating point, blocking, NB and NBI, to rank 1 and to this rank. */
    private static List<Path> atomicPaths(Client client, MemorySegment result) {
        final AtomicDomain longs = AtomicDomain.create(client, AtomicType.INT64, EnumSet.of(AtomicOp.FADD,
            AtomicOp.FCAS), 0);
        final AtomicDomain doubles = AtomicDomain.create(client, AtomicType.FLOAT64, EnumSet.of(AtomicOp.FADD), 0);
        final int self = client.rank();
        final List<Path> paths = new ArrayList<>();
        paths.add(new Path("atomic INT64 FADD blocking, FCAS NB, FADD NBI nbiWait(Ec.RMW)", i -> {
            longs.opLong(1, ATOMIC_AT, AtomicOp.FADD, 1, 0, 0);
            longs.opLongNb(result, 0, 1, ATOMIC_AT, AtomicOp.FCAS, 5, 6, 0).await();
            longs.opLongNbi(result, 8, 1, ATOMIC_AT, AtomicOp.FADD, 1, 0, 0);
            client.nbiWait(Ec.RMW);
        }));
        paths.add(new Path("atomic FLOAT64 FADD blocking and NB, to rank 1 and to this rank", i -> {
            doubles.opDouble(1, ATOMIC_AT + 8, AtomicOp.FADD, 0.5, 0, 0);
            doubles.opDoubleNb(result, 16, 1, ATOMIC_AT + 8, AtomicOp.FADD, 0.5, 0, 0).await();
            doubles.opDoubleNbi(result, 24, self, ATOMIC_AT + 8, AtomicOp.FADD, 0.5, 0, 0);
            client.nbiWait(Ec.RMW);
        }));
        return paths;
    }

    /**
     * Put and get with completion: packed, header and chunk (writes with an immediate where the conduit has RDMA), to
     * this rank (both ends here) and to rank 1.
     */
    private static List<Path> completionPaths(Client client, MemorySegment src, MemorySegment dst,
                                              BufferDescriptor remote) {
        final Pwc pwc = Pwc.of(client);
        final Completion c = new Completion();
        final int self = client.rank();
        final MemorySegment data = Arena.ofShared().allocate(8);
        final long chunked = Am.of(client).lubRequestMedium() + 1;
        final MemorySegment big = Arena.ofShared().allocate(chunked);
        final List<Path> paths = new ArrayList<>();
        paths.add(new Path("PWC + GWC 512 B to this rank, 8 B of completion data, both completions probed", i -> {
            pwc.putWithCompletion(self, 8192, src, 0, 512, i, i, data, 0);
            pwc.awaitLocal(c);
            pwc.awaitRemote(c);
            pwc.getWithCompletion(dst, 0, self, 8192, 512, i, i, data, 0);
            pwc.awaitLocal(c);
            pwc.awaitRemote(c);
        }));
        paths.add(new Path("PWC + GWC 512 B of a registration, local completion only (NO_RCE)", i -> {
            pwc.putWithCompletion(remote, 0, src, 0, 512, i, i, Pwc.NO_RCE);
            pwc.awaitLocal(c);
            pwc.getWithCompletion(dst, 0, remote, 0, 512, i, i, Pwc.NO_RCE);
            pwc.awaitLocal(c);
        }));
        paths.add(new Path("PWC 512 B to this rank's segment without an answer (NO_LCE), remote completion", i -> {
            pwc.putWithCompletion(self, 8192, src, 0, 512, i, i, Pwc.NO_LCE);
            pwc.awaitRemote(c);
        }));
        paths.add(new Path("PWC of a header and a chunk (NO_RCE)", i -> {
            pwc.putWithCompletion(1, 16384, big, 0, chunked, i, i, Pwc.NO_RCE);
            pwc.awaitLocal(c);
        }));
        paths.add(new Path("GWC larger than one reply from rank 1's segment (NO_RCE; an RDMA read on ofi, ibv, emu)",
            i -> {
                pwc.getWithCompletion(big, 0, 1, 16384, chunked, i, i, Pwc.NO_RCE);
                pwc.awaitLocal(c);
            }));
        paths.add(new Path("PWC of a header and a chunk to this rank, both completions probed", i -> {
            pwc.putWithCompletion(self, 16384, big, 0, chunked, i, i, 0);
            pwc.awaitLocal(c);
            pwc.awaitRemote(c);
        }));
        return paths;
    }
}
