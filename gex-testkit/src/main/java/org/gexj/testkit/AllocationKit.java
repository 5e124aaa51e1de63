package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Flags;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.SrcDesc;
import org.gexj.launch.InProcessJob;
import org.gexj.rma.Rma;
import org.gexj.spi.Capabilities;
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
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data path allocates nothing, run against every conduit: after warm-up, AM round trips of every category and
 * form (a Medium reply from the delivered payload too; 4 KiB Longs as they travel by default, packed on a conduit
 * that does not cross-map segments, and 64 KiB Longs by the conduit's own protocol for them) and RMA calls of every
 * completion style allocate no bytes per operation on either the initiator's or the target's thread (the JVM's
 * per-thread allocation counter), and neither do all those paths taken in turn. Where the conduit's capabilities
 * offer them, further runs ({@link Run}) measure Longs reassembled at the target (put-with-immediate plus envelope),
 * Longs by put-sync-send, and RMA over active messages.
 *
 * <p>Every path is measured in windows of its own ({@link #REPEATS} after one warm-up window, the least kept), so a
 * failure names the paths that allocate and their bytes per operation. A window holds only the path's operations:
 * rank 0 reads its counter around its loop, and rank 1 serves by polling until rank 0 says (through memory, the ranks
 * are threads of the test's JVM) that the window's operations are done, so the barriers between windows, which
 * allocate a few hundred bytes, are outside every window. A control window with no operations checks that the
 * measurement itself (reading the counter, polling an idle endpoint) allocates nothing.
 *
 * <p>A conduit module subclasses the kit and says how to select its conduit ({@link #environment()}); it may change
 * the operation counts ({@link #measured()}, {@link #pathWarmup()}) and measure every path again under settings of
 * its own ({@link #assertEveryPathAllocatesNothing}). A run the conduit cannot take ({@link Run}) is not skipped, nor
 * passed unmeasured: the subclass names it ({@link #refusedRuns()}), and its test checks that the conduit refuses the
 * run's settings (or, cross-mapped, copies Longs whatever they say, on both ranks). A run the conduit cannot take and
 * the subclass does not name fails, and so does a named run the conduit could take.
 */
public abstract class AllocationKit {
    /**
     * Measured windows per path, of which the least is kept. An allocation per operation, or per some number of
     * operations, shows in every window; the JVM's own one-time work that a window may happen to contain (a method
     * handle customized after its 127th call, a string constant resolved on the first run of a branch after
     * deoptimization, a few hundred bytes at a time) shows in one.
     */
    private static final int REPEATS = 3;
    /** Args of the int[] forms: more than the fixed-arity overloads take. */
    private static final int ARGS = 8;
    /** A Long that travels packed by default (the default packed limit is 4 KiB where Longs may also go apart). */
    private static final int LONG = 4096;
    /** A Long above every default packed limit: apart where the conduit can, in fragmented frames on udp. */
    private static final int LARGE_LONG = 65536;
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(150);
    /** Longest any single wait of this test may take before it fails instead of spinning on. */
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final String CONTROL = "control: no operation, poll only";
    private static final String IN_TURN = "every path above, in turn";

    /** Held once: {@link ManagementFactory#getThreadMXBean()} itself allocates some 800 bytes a call. */
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Bytes the JVM has allocated on the calling thread so far; reading it allocates nothing. */
    public static long allocatedBytes() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /** The runs beside the conduit's defaults; each needs capabilities a conduit may lack. */
    public enum Run {
        /** Every Long reassembled at the target: needs native RMA with immediate data. */
        REASSEMBLY(Map.of("GEX_AMLONG_PROTOCOL", "reassembly", "GEX_AMLONG_PACKED_MAX", "0")),
        /** Every Long put, then its envelope sent: needs native RMA. */
        PUT_SYNC_SEND(Map.of("GEX_AMLONG_PROTOCOL", "putsyncsend", "GEX_AMLONG_PACKED_MAX", "0")),
        /** RMA forced over AM: a run of its own only where RMA otherwise moves data without AM. */
        RMA_OVER_AM(Map.of("GEX_RMA_OVER_AM", "1"));

        private final Map<String, String> settings;

        Run(Map<String, String> settings) {
            this.settings = settings;
        }

        /**
         * A cross-mapped conduit copies Longs itself, whatever the Long protocol setting says; RMA over AM runs
         * everywhere (without native RMA it is the default, here named).
         */
        boolean supportedBy(Capabilities c) {
            return switch (this) {
                case REASSEMBLY -> c.nativeRma() && c.immediateBits() > 0 && !c.crossMapped();
                case PUT_SYNC_SEND -> c.nativeRma() && !c.crossMapped();
                case RMA_OVER_AM -> true;
            };
        }

        /**
         * On a conduit that opened a client with this run's settings though it cannot take the run, what it does
         * with them instead, checked: a cross-mapped conduit takes the Long protocol setting and copies Longs itself;
         * any other must have refused them (in {@code Gex.init}, which opens the AM layer, or at the latest in
         * {@code Am.of}), naming the setting. Returns what was checked.
         */
        String checkRefusedBy(Client client) {
            final Capabilities c = client.capabilities();
            if (c.crossMapped()) {
                assertEquals("copy", Am.of(client).longProtocol(LONG), c.conduit() + " copies Longs itself with "
                    + settings);
                return c.conduit() + " takes " + settings + " and copies Longs itself: nothing else to measure";
            }
            final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> Am.of(client), c.conduit() + " cannot carry " + this + ": Am.of must refuse " + settings);
            assertTrue(refused.getMessage().contains("GEX_AMLONG_PROTOCOL="), refused.getMessage());
            return c.conduit() + " refuses " + settings + ": " + refused.getMessage();
        }
    }

    /** Environment that selects and configures the conduit under test, e.g. {@code GEX_CONDUIT=udp}. */
    protected abstract Map<String, String> environment();

    /**
     * Operations measured per window. The default suits a network conduit, where a round trip costs tens of
     * microseconds; the bound is a tenth of a byte per operation, so one 16-byte allocation per operation fails.
     */
    protected int measured() {
        return 3_000;
    }

    /** Operations of a path's warm-up window, run right before its measured windows. */
    protected int pathWarmup() {
        return 3_000;
    }

    /**
     * The runs this conduit cannot take, which its tests check are refused instead of measuring them: none by default.
     * A conduit without native RMA names {@link Run#REASSEMBLY} and {@link Run#PUT_SYNC_SEND}, and so does a
     * cross-mapped one (which copies Longs whatever the settings say).
     */
    protected Set<Run> refusedRuns() {
        return Set.of();
    }


    /** A small mutable holder the handlers update, so they capture nothing per message. */
    private static final class Counter {
        int value;
    }

    /** One data-path operation of rank 0, run to completion: its reply handled, or its event or NBI wait done. */
    @FunctionalInterface
    private interface Operation {
        void run(int i);
    }

    private record Path(String name, Operation operation) {
    }

    /**
     * The measured bytes of one job, by "path on rank r" in path order, and the settings it ran with; or, for a run
     * the conduit cannot take, what it does instead ({@code refused}, checked) and no bytes.
     */
    private record Measurement(String label, Map<String, Long> bytes, String refused) {
    }

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
     * Runs a 2-rank job; {@code setup} registers handlers on every rank and returns the paths, which rank 0 runs
     * one window each (warm-up, then {@link #measured()} operations) while rank 1 serves them by polling. A control
     * window without operations comes first, and a window of all paths in turn last.
     *
     * @param run the run these settings make, where the conduit cannot take it checked to be refused (or ignored by a
     *            cross-mapped conduit) instead of measured; null for the defaults
     */
    private Measurement measurePaths(Map<String, String> extra, Run run,
                                     BiFunction<Client, MemorySegment, List<Path>> setup) {
        final int measured = measured();
        final int warmup = pathWarmup();
        final Map<String, Long> bytes = new ConcurrentHashMap<>();
        final List<String> order = new ArrayList<>();
        final Map<String, String> settings = new HashMap<>(environment());
        settings.putAll(extra);
        if (run != null && refusedRuns().contains(run)) {
            return checkRefused(run, settings);
        }
        // windows rank 0 has finished; rank 1 serves each window until this count reaches it
        final AtomicInteger windowsDone = new AtomicInteger();
        InProcessJob.run(2, JOB_TIMEOUT, settings, client -> {
            final Capabilities capabilities = client.capabilities();
            if (run != null && !run.supportedBy(capabilities)) {
                throw new AssertionError(capabilities.conduit() + " cannot take " + run + " (" + capabilities
                    + "), and " + getClass().getSimpleName() + " does not name it in refusedRuns()");
            }
            final MemorySegment segment = client.attachSegment(1 << 20).memory();
            final List<Path> paths = new ArrayList<>();
            paths.add(new Path(CONTROL, i -> {
            }));
            final List<Path> measuredPaths = setup.apply(client, segment);
            paths.addAll(measuredPaths);
            final Operation[] each = measuredPaths.stream().map(Path::operation).toArray(Operation[]::new);
            // one path after another in the same window, as an application mixes them
            paths.add(new Path(IN_TURN, i -> each[i % each.length].run(i)));
            if (client.rank() == 0) {
                for (Path path : paths) {
                    for (int r = 0; r < 2; r++) {
                        order.add(path.name() + " on rank " + r);
                    }
                }
            }
            client.barrier();
            int window = 0;
            for (Path path : paths) {
                long least = Long.MAX_VALUE;
                for (int phase = 0; phase <= REPEATS; phase++) {
                    final int n = phase == 0 ? warmup : measured;
                    window++;
                    client.barrier();
                    final long before;
                    final long after;
                    if (client.rank() == 0) {
                        final Operation operation = path.operation();
                        before = allocatedBytes();
                        for (int i = 0; i < n; i++) {
                            operation.run(i);
                        }
                        after = allocatedBytes();
                        windowsDone.incrementAndGet();
                    } else {
                        final long deadline = System.nanoTime() + WAIT_NANOS;
                        before = allocatedBytes();
                        while (windowsDone.get() < window) {
                            client.poll();
                            if (System.nanoTime() - deadline > 0) {
                                throw new IllegalStateException("rank 0 did not finish " + path.name() + " in "
                                    + WAIT_NANOS / 1_000_000_000L + " s");
                            }
                        }
                        after = allocatedBytes();
                    }
                    client.barrier();
                    if (phase > 0) {
                        least = Math.min(least, after - before);
                    }
                }
                bytes.put(path.name() + " on rank " + client.rank(), least);
            }
        });
        final Map<String, Long> ordered = new LinkedHashMap<>();
        order.forEach(key -> ordered.put(key, bytes.get(key)));
        return new Measurement(label(settings), ordered, null);
    }

    /**
     * A run the subclass expects refused ({@link #refusedRuns()}), checked instead of measured: a conduit without the
     * RMA the run's Long protocol needs refuses its settings where the client opens its AM layer ({@code Gex.init}),
     * naming the setting; a cross-mapped one opens, and both ranks check that it copies Longs itself.
     */
    private Measurement checkRefused(Run run, Map<String, String> settings) {
        final AtomicReference<String> taken = new AtomicReference<>();
        final AtomicInteger ranksChecked = new AtomicInteger();
        try {
            InProcessJob.run(2, JOB_TIMEOUT, settings, client -> {
                final Capabilities capabilities = client.capabilities();
                assertFalse(run.supportedBy(capabilities), capabilities.conduit() + " offers what " + run
                    + " needs, but " + getClass().getSimpleName() + " expects it refused (refusedRuns)");
                // every rank sees the same capabilities and leaves before anything collective
                taken.set(run.checkRefusedBy(client));
                ranksChecked.incrementAndGet();
            });
        } catch (AssertionError e) {
            if (e.getCause() instanceof IllegalArgumentException refused && refused.getMessage() != null
                && refused.getMessage().contains("GEX_AMLONG_PROTOCOL=")) {
                System.err.println(getClass().getSimpleName() + ": " + run + " refused at Gex.init as expected, not"
                    + " measured: " + refused.getMessage());
                return new Measurement(label(settings), Map.of(), refused.getMessage());
            }
            throw e;
        }
        assertEquals(2, ranksChecked.get(), run + ": ranks that checked what the conduit does with its settings");
        System.err.println(getClass().getSimpleName() + ": " + run + " not measured: " + taken.get());
        return new Measurement(label(settings), Map.of(), taken.get());
    }

    /** The conduit, then its other settings: {@code ofi (GEX_OFI_PROVIDER=tcp;ofi_rxm)}. */
    private static String label(Map<String, String> settings) {
        final Map<String, String> others = new TreeMap<>(settings);
        final String conduit = others.remove("GEX_CONDUIT");
        final StringBuilder b = new StringBuilder(conduit == null ? "default conduit" : conduit);
        if (!others.isEmpty()) {
            b.append(' ').append(others.toString().replace('{', '(').replace('}', ')'));
        }
        return b.toString();
    }

    private void assertNoPathAllocates(Measurement m) {
        if (m.refused() != null) {
            return; // checked refused instead (checkRefused), nothing measured
        }
        final int measured = measured();
        // below 0.1 byte per operation: one allocation per operation would be at least 16 bytes x measured
        final long bound = measured / 10;
        final StringBuilder table = new StringBuilder();
        final List<String> allocating = new ArrayList<>();
        m.bytes().forEach((path, b) -> {
            final String line = b == null ? path + " not measured"
                : String.format("%-72s %8d bytes %8.3f B/op", path, b, (double) b / measured);
            table.append('\n').append(line);
            if (b == null || b >= bound) {
                allocating.add(line);
            }
        });
        System.out.println(m.label() + ": bytes allocated over " + measured + " operations per path (least of "
            + REPEATS + " windows):" + table);
        assertTrue(allocating.isEmpty(), "paths that allocate (bound " + bound + " bytes per " + measured
            + " operations):\n" + String.join("\n", allocating));
    }

    private static void awaitReply(Client client, Counter replies) {
        if (replies.value == 0) {
            final long deadline = System.nanoTime() + WAIT_NANOS;
            while (replies.value == 0) {
                client.poll();
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("no reply in " + WAIT_NANOS / 1_000_000_000L + " s");
                }
            }
        }
        replies.value = 0;
    }

    /** When a back-pressured IMMEDIATE request is retried: polls once, and fails once the deadline has passed. */
    private static void pollBeforeRetry(Client client, long deadline) {
        client.poll();
        if (System.nanoTime() - deadline > 0) {
            throw new IllegalStateException("IMMEDIATE request back-pressured for " + WAIT_NANOS / 1_000_000_000L
                + " s");
        }
    }

    /** IMMEDIATE replies are sent with one message in flight: back-pressure there would be a bug, not a retry. */
    private static void checkSent(int code) {
        if (code != Am.OK) {
            throw new IllegalStateException("IMMEDIATE reply back-pressured with one message in flight: " + code);
        }
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
     * {@link Lc#NOW} and with {@link Lc#DEFER}), NBI in an access region.
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
        return paths;
    }
}
