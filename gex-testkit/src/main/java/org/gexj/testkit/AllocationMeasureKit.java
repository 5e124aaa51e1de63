package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.am.Am;
import org.gexj.launch.InProcessJob;
import org.gexj.spi.Capabilities;

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
 * The allocation kit, part 1 of 2: how it measures. A path (one data-path operation of rank 0, run to completion) is
 * measured in windows of its own ({@link #REPEATS} after one warm-up window, the least kept), so a failure names the
 * paths that allocate and their bytes per operation. A window holds only the path's operations: rank 0 reads its
 * counter (the JVM's per-thread allocation counter) around its loop, and rank 1 serves by polling until rank 0 says
 * (through memory, the ranks are threads of the test's JVM) that the window's operations are done, so the barriers
 * between windows, which allocate a few hundred bytes, are outside every window. A control window with no operations
 * checks that the measurement itself (reading the counter, polling an idle endpoint) allocates nothing.
 *
 * <p>The runs beside the conduit's defaults ({@link Run}) need capabilities a conduit may lack. A run the conduit
 * cannot take is not skipped, nor passed unmeasured: the subclass names it ({@link #refusedRuns()}), and its test
 * checks that the conduit refuses the run's settings (or, cross-mapped, copies Longs whatever they say, on both
 * ranks). A run the conduit cannot take and the subclass does not name fails, and so does a named run the conduit
 * could take. Conduits subclass {@link AllocationKit}, which holds the paths and the tests.
 */
public abstract class AllocationMeasureKit {
    /**
     * Measured windows per path, of which the least is kept. An allocation per operation, or per some number of
     * operations, shows in every window; the JVM's own one-time work that a window may happen to contain (a method
     * handle customized after its 127th call, a string constant resolved on the first run of a branch after
     * deoptimization, a few hundred bytes at a time) shows in one.
     */
    private static final int REPEATS = 3;
    /** Args of the int[] forms: more than the fixed-arity overloads take. */
    static final int ARGS = 8;
    /** A Long that travels packed by default (the default packed limit is 4 KiB where Longs may also go apart). */
    static final int LONG = 4096;
    /** A Long above every default packed limit: apart where the conduit can, in fragmented frames on udp. */
    static final int LARGE_LONG = 65536;
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(150);
    /** Longest any single wait of this test may take before it fails instead of spinning on. */
    static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);
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

        final Map<String, String> settings;

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
    static final class Counter {
        int value;
    }

    /** One data-path operation of rank 0, run to completion: its reply handled, or its event or NBI wait done. */
    @FunctionalInterface
    interface Operation {
        void run(int i);
    }

    /** An operation and the name a failure gives it. */
    record Path(String name, Operation operation) {
    }

    /**
     * The measured bytes of one job, by "path on rank r" in path order, and the settings it ran with; or, for a run
     * the conduit cannot take, what it does instead ({@code refused}, checked) and no bytes.
     */
    record Measurement(String label, Map<String, Long> bytes, String refused) {
    }

    /**
     * Runs a 2-rank job; {@code setup} registers handlers on every rank and returns the paths, which rank 0 runs, a
     * warm-up window each, then again one window each (warm-up, then {@link #measured()} operations) while rank 1
     * serves them by polling. A control
     * window without operations comes first, and a window of all paths in turn last.
     *
     * @param run the run these settings make, where the conduit cannot take it checked to be refused (or ignored by a
     *            cross-mapped conduit) instead of measured; null for the defaults
     */
    final Measurement measurePaths(Map<String, String> extra, Run run,
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
            // a round of every path's warm-up first: measured first, a path would otherwise meet a JIT still
            // compiling (and deoptimising) the conduit's paths, whose one-off allocations spread over its windows
            for (int round = 0; round < 2; round++) {
                for (Path path : paths) {
                    long least = Long.MAX_VALUE;
                    final int phases = round == 0 ? 0 : REPEATS;
                    for (int phase = 0; phase <= phases; phase++) {
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
                    if (round > 0) {
                        bytes.put(path.name() + " on rank " + client.rank(), least);
                    }
                }
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

    final void assertNoPathAllocates(Measurement m) {
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

    static void awaitReply(Client client, Counter replies) {
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
    static void pollBeforeRetry(Client client, long deadline) {
        client.poll();
        if (System.nanoTime() - deadline > 0) {
            throw new IllegalStateException("IMMEDIATE request back-pressured for " + WAIT_NANOS / 1_000_000_000L
                + " s");
        }
    }

    /** IMMEDIATE replies are sent with one message in flight: back-pressure there would be a bug, not a retry. */
    static void checkSent(int code) {
        if (code != Am.OK) {
            throw new IllegalStateException("IMMEDIATE reply back-pressured with one message in flight: " + code);
        }
    }
}
