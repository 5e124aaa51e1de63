package org.gexj.smp;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Flags;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.SrcDesc;
import org.gexj.launch.InProcessJob;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data path allocates nothing: after warm-up, AM round trips of every category and form (a Medium reply from the delivered payload too) and RMA calls of every
 * completion style allocate no bytes per operation on either the initiator's or the target's thread (the JVM's
 * per-thread allocation counter). Beside the mixed run of the first test, every path is measured in a window of its
 * own, so a failure names the paths that allocate and their bytes per operation.
 */
class SmpAllocationTest {
    private static final int WARMUP = 100_000;
    private static final int MEASURED = 100_000;
    /** Warm-up of one path's window: enough for the JIT to compile the path before it is measured. */
    private static final int PATH_WARMUP = 30_000;
    /** Args of the int[] forms: more than the fixed-arity overloads take. */
    private static final int ARGS = 8;

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    /** A small mutable holder the handlers update, so they capture nothing per message. */
    static final class Counter {
        int value;
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void steadyStateAmAndRmaAllocateNothingOnEitherSide() {
        final Map<String, Long> bytes = new ConcurrentHashMap<>();
        InProcessJob.run(2, Duration.ofSeconds(280), Map.of("GEX_CONDUIT", "smp"), client -> {
            final Am am = Am.of(client);
            final Rma rma = Rma.of(client);
            final MemorySegment segment = client.attachSegment(1 << 20).memory();
            final MemorySegment src = Arena.ofShared().allocate(8192);
            final Counter replies = new Counter();
            final int pongShort = am.register(AmHandler.shortReply(1, (t, a) -> replies.value++));
            final int pongMedium = am.register(AmHandler.mediumReply(1, (t, p, a) -> replies.value++));
            final int pongLong = am.register(AmHandler.longReply(1, (t, p, a) -> replies.value++));
            final int pingShort = am.register(AmHandler.shortRequest(1, (t, a) -> t.replyShort(pongShort, a.get(0))));
            final int pingMedium = am.register(AmHandler.mediumRequest(1,
                (t, p, a) -> t.replyMedium(pongMedium, segment, 0, p.length(), Lc.NOW, a.get(0))));
            final int echoMedium = am.register(AmHandler.mediumRequest(1,
                (t, p, a) -> t.replyMedium(pongMedium, p, 0, p.length(), Lc.NOW, a.get(0))));
            final int pingLong = am.register(AmHandler.longRequest(1,
                (t, p, a) -> t.replyLong(pongLong, segment, p.segmentOffset(), p.length(), 4096, Lc.NOW, a.get(0))));
            client.barrier();
            for (int phase = 0; phase < 2; phase++) {
                final int n = phase == 0 ? WARMUP : MEASURED;
                client.barrier();
                final long before = allocated();
                if (client.rank() == 0) {
                    for (int i = 0; i < n; i++) {
                        final int kind = i % 5;
                        replies.value = 0;
                        switch (kind) {
                            case 0 -> am.requestShort(1, pingShort, i);
                            case 1 -> am.requestMedium(1, pingMedium, src, 0, 256, Lc.NOW, i);
                            case 2 -> am.requestLong(1, pingLong, src, 0, 4096, 0, Lc.NOW, i);
                            case 3 -> am.requestMedium(1, echoMedium, src, 0, 256, Lc.NOW, i);
                            default -> {
                                rma.put(1, 8192, src, 0, 512);
                                rma.get(src, 0, 1, 8192, 512);
                                replies.value = 1;
                            }
                        }
                        while (replies.value == 0) {
                            client.poll();
                        }
                    }
                }
                client.barrier();
                if (phase == 1) {
                    bytes.put("rank " + client.rank(), allocated() - before);
                }
            }
        });
        // Reading the counter itself and parking in the barriers allocate a few hundred bytes per window; one
        // allocation per message would be at least 16 bytes x 100000.
        System.out.println("bytes allocated over " + MEASURED + " AM round trips and RMA calls: " + bytes);
        bytes.forEach((rank, b) -> assertTrue(b < MEASURED / 10,
            rank + " allocated " + b + " bytes over " + MEASURED + " operations (" + (double) b / MEASURED + " B/op)"));
        assertEquals(2, bytes.size());
    }

    /** One data-path operation of rank 0, run to completion: its reply handled, or its event or NBI wait done. */
    @FunctionalInterface
    private interface Operation {
        void run(int i);
    }

    private record Path(String name, Operation operation) {
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void everyAmFormAndRmaCompletionAllocatesNothingOnEitherSide() {
        final Map<String, Long> bytes = measurePaths(Map.of(), (client, segment) -> {
            final List<Path> paths = amPaths(client, segment);
            paths.addAll(rmaPaths(client));
            return paths;
        });
        assertNoPathAllocates(bytes);
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void rmaOverActiveMessagesAllocatesNothingOnEitherSide() {
        final Map<String, Long> bytes = measurePaths(Map.of("GEX_RMA_OVER_AM", "1"), (client, segment) -> {
            assertTrue(Rma.of(client).overActiveMessages());
            return rmaPaths(client);
        });
        assertNoPathAllocates(bytes);
    }

    /**
     * Runs a 2-rank job; {@code setup} registers handlers on every rank and returns the paths, which rank 0 runs one
     * window each (warm-up, then {@link #MEASURED} operations) while rank 1 serves them inside a barrier.
     *
     * @return bytes allocated in each measured window, by "path on rank r", in path order
     */
    private static Map<String, Long> measurePaths(Map<String, String> env,
                                                  BiFunction<Client, MemorySegment, List<Path>> setup) {
        final Map<String, Long> bytes = new ConcurrentHashMap<>();
        final List<String> order = new ArrayList<>();
        final Map<String, String> settings = new HashMap<>(env);
        settings.put("GEX_CONDUIT", "smp");
        InProcessJob.run(2, Duration.ofSeconds(540), settings, client -> {
            final MemorySegment segment = client.attachSegment(1 << 20).memory();
            final List<Path> paths = setup.apply(client, segment);
            if (client.rank() == 0) {
                for (Path path : paths) {
                    for (int r = 0; r < 2; r++) {
                        order.add(path.name() + " on rank " + r);
                    }
                }
            }
            client.barrier();
            for (Path path : paths) {
                for (int phase = 0; phase < 2; phase++) {
                    final int n = phase == 0 ? PATH_WARMUP : MEASURED;
                    client.barrier();
                    final long before = allocated();
                    if (client.rank() == 0) {
                        final Operation operation = path.operation();
                        for (int i = 0; i < n; i++) {
                            operation.run(i);
                        }
                    }
                    client.barrier();
                    if (phase == 1) {
                        final long after = allocated();
                        bytes.put(path.name() + " on rank " + client.rank(), after - before);
                    }
                }
            }
        });
        final Map<String, Long> ordered = new LinkedHashMap<>();
        order.forEach(key -> ordered.put(key, bytes.get(key)));
        return ordered;
    }

    /** Same bound as the mixed run: one allocation per operation would be at least 16 bytes x MEASURED. */
    private static void assertNoPathAllocates(Map<String, Long> bytes) {
        final StringBuilder table = new StringBuilder();
        final List<String> allocating = new ArrayList<>();
        bytes.forEach((path, b) -> {
            final String line = String.format("%-60s %10d bytes %8.2f B/op", path, b, (double) b / MEASURED);
            table.append('\n').append(line);
            if (b == null || b >= MEASURED / 10) {
                allocating.add(line);
            }
        });
        System.out.println("bytes allocated over " + MEASURED + " operations per path:" + table);
        assertTrue(allocating.isEmpty(), "paths that allocate (bound " + MEASURED / 10 + " bytes per " + MEASURED
            + " operations):\n" + String.join("\n", allocating));
    }

    private static void awaitReply(Client client, Counter replies) {
        while (replies.value == 0) {
            client.poll();
        }
        replies.value = 0;
    }

    /** IMMEDIATE replies are sent with one message in flight: back-pressure there would be a bug, not a retry. */
    private static void checkSent(int code) {
        if (code != Am.OK) {
            throw new IllegalStateException("IMMEDIATE reply back-pressured with one message in flight: " + code);
        }
    }

    /** AM requests and their replies of every category, in every form, with every local-completion option. */
    private static List<Path> amPaths(Client client, MemorySegment segment) {
        final Am am = Am.of(client);
        final MemorySegment src = Arena.ofShared().allocate(8192);
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
            t.prepareReplyMedium(segment, p.length(), p.length(), Lc.NOW, 0, 1).commit(pongMedium, p.length(), a.get(0))));
        final int npamLongLibrary = am.register(AmHandler.longRequest(1, (t, p, a) -> {
            final SrcDesc sd = t.prepareReplyLong(null, p.length(), p.length(), 4096, null, 0, 1);
            sd.buffer().putInt(0, a.get(0));
            sd.commit(pongLong, p.length(), a.get(0));
        }));
        final int npamLongClient = am.register(AmHandler.longRequest(1, (t, p, a) ->
            t.prepareReplyLong(segment, p.length(), p.length(), 4096, Lc.NOW, 0, 1).commit(pongLong, p.length(), a.get(0))));

        final List<Path> paths = new ArrayList<>();
        paths.add(new Path("Short, 1 arg", i -> {
            am.requestShort(1, pingShort, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path("Medium 256 B, 1 arg, Lc.NOW", i -> {
            am.requestMedium(1, pingMedium, src, 0, 256, Lc.NOW, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path("Long 4 KiB, 1 arg, Lc.NOW", i -> {
            am.requestLong(1, pingLong, src, 0, 4096, 0, Lc.NOW, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path("Short, IMMEDIATE, int[" + ARGS + "]", i -> {
            args[0] = i;
            while (am.requestShort(1, pingShortN, Flags.IMMEDIATE, args, ARGS) != Am.OK) {
                client.poll();
            }
            awaitReply(client, replies);
        }));
        paths.add(new Path("Medium 256 B, IMMEDIATE, int[" + ARGS + "]", i -> {
            args[0] = i;
            while (am.requestMedium(1, pingMediumN, src, 0, 256, Lc.NOW, Flags.IMMEDIATE, args, ARGS) != Am.OK) {
                client.poll();
            }
            awaitReply(client, replies);
        }));
        paths.add(new Path("Long 4 KiB, IMMEDIATE, int[" + ARGS + "]", i -> {
            args[0] = i;
            while (am.requestLong(1, pingLongN, src, 0, 4096, 0, Lc.NOW, Flags.IMMEDIATE, args, ARGS) != Am.OK) {
                client.poll();
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
        paths.add(new Path("NPAM Long 4 KiB, library buffer", i -> {
            final SrcDesc sd = am.prepareRequestLong(1, null, 4096, 4096, 0, null, 0, 1);
            sd.buffer().putInt(0, i);
            sd.commit(npamLongLibrary, 4096, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path("NPAM Long 4 KiB, client buffer", i -> {
            am.prepareRequestLong(1, src, 4096, 4096, 0, Lc.NOW, 0, 1).commit(npamLongClient, 4096, i);
            awaitReply(client, replies);
        }));
        paths.add(new Path("Medium 256 B, Lc.GROUP, nbiWait(Ec.AM)", i -> {
            am.requestMedium(1, pingMedium, src, 0, 256, Lc.GROUP, i);
            am.nbiWait(Ec.AM);
            awaitReply(client, replies);
        }));
        paths.add(new Path("Long 4 KiB, Lc.GROUP, nbiWait(Ec.AM)", i -> {
            am.requestLong(1, pingLong, src, 0, 4096, 0, Lc.GROUP, i);
            am.nbiWait(Ec.AM);
            awaitReply(client, replies);
        }));
        paths.add(new Path("Medium 256 B, Lc.event(), lastEvent().await()", i -> {
            am.requestMedium(1, pingMedium, src, 0, 256, mediumLc, i);
            mediumLc.lastEvent().await();
            awaitReply(client, replies);
        }));
        paths.add(new Path("Long 4 KiB, Lc.event(), lastEvent().await()", i -> {
            am.requestLong(1, pingLong, src, 0, 4096, 0, longLc, i);
            longLc.lastEvent().await();
            awaitReply(client, replies);
        }));
        return paths;
    }

    /** RMA calls of every completion style: blocking, NB with an event, NBI with nbiWait, NBI in an access region. */
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
        paths.add(new Path("RMA putNbi + getNbi 512 B in an access region", i -> {
            client.beginAccessRegion();
            rma.putNbi(1, 8192, src, 0, 512, Lc.NOW);
            rma.getNbi(dst, 0, 1, 8192, 512);
            client.endAccessRegion().await();
        }));
        return paths;
    }
}
