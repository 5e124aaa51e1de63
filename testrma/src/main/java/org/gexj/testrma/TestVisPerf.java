package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.benchutil.JitQuiescence;
import org.gexj.benchutil.TimerGranularity;
import org.gexj.benchutil.WarmupFinish;
import org.gexj.rma.Vis;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * GASNet's testvisperf: the bandwidth of non-contiguous put and get ({@link Vis}), sections A-F: VECTOR PUT, VECTOR
 * GET, INDEXED PUT, INDEXED GET, STRIDED PUT, STRIDED GET. For each contig size (chunk length) a table: one row per
 * data size per operation, one column per density (chunk length over the distance between chunks, 100% down to
 * 100/densitysteps %), each cell the MiB/s of a loop of operations in the chosen form (NBI with one wait, or NB then
 * waiting every event). Same command line, pairing of ranks, sizes, sections, header lines and table format as
 * GASNet's, and its auto-scaling of iterations (TEST_ASI) when the iteration argument is a time in seconds (it has a
 * '.'; default 0.1): each cell then starts at 1 iteration, or from the last cell of its density scaled by size, and
 * doubles until its loop takes that long. Timed with {@link System#nanoTime()}.
 *
 * <p>Differences: the configuration and host lines of GASNet's test_init are not printed (they describe GASNet's
 * build), only its timer line; GASNet's largest segment ({@code gasnet_getMaxGlobalSegmentSize}) is
 * {@link Client#maxSegmentSize()}; arguments that are not numbers, negative sizes, {@code -sl} or
 * {@code -densitysteps} below 1 are usage errors (GASNet's atol/atoi would read 0, or its loops would misbehave);
 * the NB events are allocated before the timed loop, not in it. The GEX/J-only {@code -warmup N} first runs every
 * enabled section silently (each cell with {@link #WARMUP_CELL_FACTOR} x N iterations, at most
 * {@link #WARMUP_BYTES} bytes' worth but at least one, in calls of {@link #WARMUP_CALL} iterations; two passes, and
 * more while the JIT still compiles, at most {@link #MAX_PASSES}), then {@link WarmupFinish}, so that the JIT has
 * compiled the loops before the first timed cell. Nothing of GASNet's test is missing from GEX/J.
 */
public final class TestVisPerf {
    static final String USAGE = "Usage: testvisperf [options] (iters) (test_sections)\n"
        + "  -p/-g     selects puts only or gets only (default is both).\n"
        + "  -r/-l     selects remotely contiguous or locally contiguous (default is neither).\n"
        + "  -mindata/-maxdata <sz>   \n"
        + "            selects sz as min/max data payload per operation.\n"
        + "  -mincontig/-maxcontig <sz>   \n"
        + "            selects sz as min/max contig size.\n"
        + "  -datafactor/-contigfactor <f>   \n"
        + "            selects f as growth factor for data/contig sizes.\n"
        + "  -densitysteps <d>   \n"
        + "            selects d density steps, inclusive from 100%..100/d%\n"
        + "  -sl <n>   selects n striding levels (default is 2).\n"
        + "  -in/-out  selects whether the initiator-side\n"
        + "            memory is in the GASNet segment or not (default is in-segment).\n"
        + "  -a        enables full-duplex mode, where all nodes send.\n"
        + "  -c        enables cross-machine pairing, default is nearest neighbor.\n"
        + "  -f        enables 'first/last' mode, where the first/last\n"
        + "            nodes communicate with each other, while all other nodes sit idle.\n"
        + "  -nbi      use NBI-mode synchronization (default)\n"
        + "  -nb       use NB-mode synchronization\n"
        + "  -warmup N (GEX/J) first runs every enabled section silently, twice and more while the\n"
        + "            JIT compiles, each cell with " + TestVisPerf.WARMUP_CELL_FACTOR
        + " x N iterations (at most 1 MiB's worth, at least 1);\n"
        + "            default 100, 0 = off.";
    /** The default of {@code -warmup}: a cell of the silent passes runs {@link #WARMUP_CELL_FACTOR} times as many. */
    static final int WARMUP = 100;
    /** Data per cell of a warm-up pass at most (a cell runs at least one operation, besides GASNet's warm-up one). */
    static final long WARMUP_BYTES = 1L << 20;
    /**
     * Silent passes at most: two, and more while one still compiled more than {@link #QUIET_PASS_MS} on some rank. Two
     * fixed ones left the strided loops in C1's code, compiled by C2 during the first timed rows (5-40 times GASNet's
     * time for small transfers).
     */
    static final int MAX_PASSES = 8;
    private static final long QUIET_PASS_MS = 5;
    /**
     * Iterations of each call of a cell's loop in the warm-up: short calls, so that the loops are called often enough
     * for C2 to compile them whole, not only on-stack in a long call.
     */
    static final int WARMUP_CALL = 4;
    /**
     * A warm-up cell runs this many times {@code -warmup}'s iterations where {@link #WARMUP_BYTES} allows: a path that
     * only a row's cells take (the one-piece row's {@code Rma.copyOne}) needs some 10 000 calls before C2 compiles
     * it. With 100 a cell, a narrow command line (one contig size, 8 rows: 400 calls of the one-piece path a pass)
     * ended a quiet warm-up with it in C1's code; C2 compiled it in the first timed cell, which took 11-54 ns an
     * operation against the next cell's 3.6 ({@code -mincontig 64 -maxcontig 64 -mindata 64 -maxdata 8192
     * -datafactor 2 100000 A}).
     */
    static final int WARMUP_CELL_FACTOR = 20;
    /** TEST_ASI_BANKS. */
    private static final int ASI_BANKS = 10;
    private static final long MIB = 1024 * 1024;

    private final Client client;
    private final PrintStream out;
    private final int rank;
    // the command line, GASNet's names in comments
    private boolean inSegment = true;
    private boolean doPuts = true;
    private boolean doGets = true;
    private boolean nb;
    private boolean remoteContig;
    private boolean localContig;
    private int strideLevels = 2;
    private long minPayload;
    private long maxPayload;
    private long minContig;
    private long maxContig;
    private double contigFactor = 8;
    private double dataFactor = 2;
    private int densitySteps = 4;
    private boolean firstLast;
    private boolean fullDuplex;
    private boolean crossMachine;
    private int warmup = WARMUP;
    private String iterString = "0.1";
    private long iters;
    private String sections = "";
    /** TEST_ASI's interval in ns; 0: a fixed iteration count. */
    private long asiNs;
    private final long[] asiIters = new long[ASI_BANKS];
    private final long[] asiSize = new long[ASI_BANKS];
    // the run
    private long area;
    private int peer;
    private boolean sender;
    private boolean singleSender;
    private Vis vis;
    private MemorySegment local;
    private long localBase;
    private PrintStream print;
    /** Iterations per cell in a warm-up pass; 0 in the timed one. */
    private int warmIters;
    /*
     * A cell's operations: max(cellMin, min(cellIters, cellBytes / data)), in calls of cellCall. Fields, not a branch
     * on the pass: a branch that only the timed pass takes deoptimized row() at its first cell, and C2 compiled row()
     * again during the timed cells, on one of the two cores (A's first cell took 0.5-1.3 us an operation in 6 of 10
     * runs, against 0.02).
     */
    private long cellMin;
    private long cellIters;
    private long cellBytes;
    private long cellCall;

    private TestVisPerf(Client client, PrintStream out) {
        this.client = client;
        this.out = out;
        this.rank = client.rank();
    }

    public static void main(String[] args) {
        RmaBench.main("TESTVISPERF", args, TestVisPerf::run);
    }

    /** Runs testvisperf on this rank (collective). @return 0, or 1 for a usage error */
    public static int run(Client client, String[] args, PrintStream out) {
        final TestVisPerf test = new TestVisPerf(client, out);
        final List<String> errors = new ArrayList<>();
        if (!test.parse(args, errors)) {
            if (client.rank() == 0) {
                for (String e : errors) {
                    out.println("ERROR: " + e);
                }
                out.println(USAGE);
                out.flush();
            }
            return 1;
        }
        return test.run();
    }

    /** GASNet's argument loop and checks. @return false for a usage error */
    private boolean parse(String[] args, List<String> errors) {
        boolean help = false;
        int arg = 0;
        try {
            while (arg < args.length && args[arg].startsWith("-")) {
                final String a = args[arg++];
                switch (a) {
                    case "-in" -> inSegment = true;
                    case "-out" -> inSegment = false;
                    case "-sl" -> strideLevels = (int) count(args[arg++], 1, Integer.MAX_VALUE);
                    case "-mincontig" -> minContig = count(args[arg++], 0, Long.MAX_VALUE);
                    case "-maxcontig" -> maxContig = count(args[arg++], 0, Long.MAX_VALUE);
                    case "-contigfactor" -> contigFactor = Double.parseDouble(args[arg++]);
                    case "-mindata" -> minPayload = count(args[arg++], 0, Long.MAX_VALUE);
                    case "-maxdata" -> maxPayload = count(args[arg++], 0, Long.MAX_VALUE);
                    case "-datafactor" -> dataFactor = Double.parseDouble(args[arg++]);
                    case "-densitysteps" -> densitySteps = (int) count(args[arg++], 1, Integer.MAX_VALUE);
                    case "-warmup" -> warmup = (int) count(args[arg++], 0, Integer.MAX_VALUE);
                    case "-f" -> firstLast = true;
                    case "-c" -> crossMachine = true;
                    case "-a" -> fullDuplex = true;
                    case "-p" -> {
                        doGets = false;
                        doPuts = true;
                    }
                    case "-g" -> {
                        doGets = true;
                        doPuts = false;
                    }
                    case "-r" -> remoteContig = true;
                    case "-l" -> localContig = true;
                    case "-nb" -> nb = true;
                    case "-nbi" -> nb = false;
                    default -> help = true;
                }
            }
            if (arg < args.length) {
                iterString = args[arg++];
            }
            if (iterString.contains(".")) {
                asiNs = (long) (Math.max(Double.parseDouble(iterString), 0.001) * 1e9); // TEST_ASI_INIT
            } else {
                iters = count(iterString, 0, Integer.MAX_VALUE);
            }
        } catch (RuntimeException e) { // a missing value, or not a number
            help = true;
        }
        if (arg < args.length) {
            sections = args[arg++].toUpperCase(Locale.ROOT);
        }
        help |= check(minContig != 0 && maxContig != 0 && minContig > maxContig, "min_contig > max_contig", errors);
        help |= check(minPayload != 0 && maxPayload != 0 && minPayload > maxPayload, "min_payload > max_payload",
            errors);
        help |= check(minPayload != 0 && minContig != 0 && minPayload < minContig, "min_payload < min_contig", errors);
        help |= check(maxContig != 0 && maxPayload != 0 && maxContig > maxPayload, "max_contig > max_payload", errors);
        help |= check(!(contigFactor > 1), "contigfactor <= 1", errors);
        help |= check(!(dataFactor > 1), "datafactor <= 1", errors);
        return !help && arg == args.length;
    }

    /** GASNet's ERR on a bad combination: @return {@code bad}, the message added to {@code errors} if so */
    private static boolean check(boolean bad, String message, List<String> errors) {
        if (bad) {
            errors.add(message);
        }
        return bad;
    }

    /** A whole number in [min, max], else IllegalArgumentException (NumberFormatException is one). */
    private static long count(String s, long min, long max) {
        final long v = Long.parseLong(s);
        if (v < min || v > max) {
            throw new IllegalArgumentException(s);
        }
        return v;
    }

    private static long alignDown(long v, long a) {
        return v / a * a;
    }

    /** The sizes, the segment, the pairing, the header; then the warm-up and timed passes. */
    private int run() {
        if (maxPayload == 0) {
            maxPayload = 2 * MIB;
        }
        final long page = Client.PAGE_SIZE;
        area = client.maxSegmentSize();
        if (inSegment) {
            area = alignDown(area / 2, page);
        }
        maxPayload = Math.min(area, maxPayload);
        area = alignDown(densitySteps > area / Math.max(1, maxPayload) ? area : maxPayload * densitySteps, page);
        final long segment = inSegment ? area * 2 : area;
        if (minContig == 0) {
            minContig = 8;
        }
        if (maxContig == 0) {
            maxContig = Math.min(256 * 1024, maxPayload);
        }
        if (minPayload == 0) {
            minPayload = minContig;
        }
        client.attachSegment(Math.max(page, RmaBench.alignUp(segment, page)));
        final int ranks = client.size();
        if (rank == 0) {
            out.println(TimerGranularity.line());
            out.flush();
        }
        if (!firstLast && ranks > 1 && ranks % 2 != 0) {
            if (rank == 0) {
                out.println("WARNING: This test requires a unary or even number of nodes. Test skipped.\n");
                out.flush();
            }
            return 0;
        }
        if (firstLast) {
            peer = rank == 0 ? ranks - 1 : 0;
            sender = fullDuplex ? rank == 0 || rank == ranks - 1 : rank == 0;
        } else if (ranks == 1) {
            peer = 0;
            sender = true;
        } else if (crossMachine) {
            peer = rank < ranks / 2 ? rank + ranks / 2 : rank - ranks / 2;
            sender = rank < ranks / 2 || fullDuplex;
        } else {
            peer = rank % 2 == 1 ? rank - 1 : rank + 1;
            sender = fullDuplex || rank % 2 == 0;
        }
        singleSender = ranks == 1 || (ranks == 2 || firstLast) && !fullDuplex;
        vis = Vis.of(client);
        try (Arena arena = Arena.ofShared()) {
            if (inSegment) {
                local = client.segment().memory();
                localBase = area;
            } else {
                local = arena.allocate(Math.max(page, area), page);
                localBase = 0;
            }
            if (rank == 0) {
                header();
            }
            client.barrier();
            warmUp();
            print = out;
            warmIters = 0;
            cells(0, iters, Long.MAX_VALUE, Math.max(1, iters));
            pass();
            client.barrier();
        }
        return 0;
    }

    private void header() {
        out.printf(Locale.ROOT, "Running %s iterations of %s%s%snon-contiguous put/get %s %s%s%n", iterString,
            firstLast ? "first/last " : "", fullDuplex ? "full-duplex " : "", crossMachine ? "cross-machine " : "",
            nb ? "NB" : "NBI", remoteContig ? "(remotely-contiguous)" : "", localContig ? "(locally-contiguous)" : "");
        out.printf(Locale.ROOT, "   local data %s-segment for payload sizes: %d...%d  (datafactor=%.2f)%n",
            inSegment ? "in" : "out", minPayload, maxPayload, dataFactor);
        out.printf(Locale.ROOT, "   contig sizes: %d...%d  (contigfactor=%.2f)%n", minContig, maxContig, contigFactor);
        out.printf(Locale.ROOT, "   densitysteps=%d stridelevels=%d%n", densitySteps, strideLevels);
        if (asiNs > 0) { // estimate the total run time
            long measurements = 0;
            char section = 'A';
            for (int kind = VisPerfOp.VECTOR; kind <= VisPerfOp.STRIDED; kind++) {
                for (int get = 0; get < 2; get++) {
                    if (!enabled(section++) || get == 1 && !doGets || get == 0 && !doPuts) {
                        continue;
                    }
                    long lastContig = 0;
                    for (double rawContig = minContig; rawContig <= maxContig; rawContig *= contigFactor) {
                        final long contig = (long) rawContig;
                        if (contig == lastContig || contig > maxPayload) {
                            continue;
                        }
                        lastContig = contig;
                        long lastData = 0;
                        for (double rawData = minPayload; rawData <= maxPayload; rawData *= dataFactor) {
                            final long data = alignDown((long) rawData, contig);
                            if (data != lastData) {
                                lastData = data;
                                measurements += densitySteps;
                            }
                        }
                    }
                }
            }
            final double seconds = 2 * Math.max(0.001, Double.parseDouble(iterString)) * measurements;
            out.printf(Locale.ROOT, "ESTIMATED test run time: ~ %d sec (%.1f min)%n", (int) seconds, seconds / 60);
        }
        out.println("rows are databytes/op : bandwidth values in MiB/s");
        out.flush();
    }

    private boolean enabled(char section) {
        return sections.isEmpty() || sections.indexOf(section) >= 0;
    }

    /**
     * The silent passes of {@code -warmup} (each cell with at most {@link #warmup} iterations), then the end of the
     * warm-up: the code between rows, the barriers, the JIT's quiet ({@link WarmupFinish}). Collective.
     */
    private void warmUp() {
        if (warmup == 0) {
            return;
        }
        // rows to /dev/null through a stream like the output's (OutputStream.nullOutputStream() left the timed pass
        // to deoptimize and compile the printing on its first rows); only the file is closed, as testqueue does
        try (FileOutputStream devNull = new FileOutputStream("/dev/null")) {
            final PrintStream sink = RmaBench.printStream(devNull);
            print = sink;
            warmIters = warmup;
            cells(1, (long) warmup * WARMUP_CELL_FACTOR, WARMUP_BYTES, WARMUP_CALL);
            pass();
            client.barrier();
            JitQuiescence.repeatWhileCompiling(() -> {
                pass();
                client.barrier();
            }, ms -> RmaBench.maxOverRanks(client, ms), MAX_PASSES - 1, QUIET_PASS_MS);
            final WarmupFinish finish = WarmupFinish.scaled(warmup, WARMUP);
            finish.betweenRows(i -> {
                client.barrier();
                if (sender) {
                    final long data = 8L << (i % 19); // 8 B to 2 MiB, digits scattered
                    sink.println(rowStart(data) + bandwidth(data, 1 + i % 1000,
                        1 + i * 2_654_435_761L % 100_000_000));
                    sink.flush();
                }
            });
            finish.finish(rank, client::barrier);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }


    private void cells(long min, long iterations, long bytes, long call) {
        cellMin = min;
        cellIters = iterations;
        cellBytes = bytes;
        cellCall = call;
    }

    /** Every enabled section in GASNet's order, its rows to {@link #print}. */
    private void pass() {
        char section = 'A' - 1;
        for (int kind = VisPerfOp.VECTOR; kind <= VisPerfOp.STRIDED; kind++) {
            for (int get = 0; get < 2; get++) {
                section++;
                if (!enabled(section) || get == 1 && !doGets || get == 0 && !doPuts) {
                    continue;
                }
                long lastContig = 0;
                for (double rawContig = minContig; rawContig <= maxContig; rawContig *= contigFactor) {
                    final long contig = (long) rawContig;
                    if (contig == lastContig || contig > maxPayload) {
                        continue;
                    }
                    lastContig = contig;
                    table(section, kind, get == 1, contig);
                }
            }
        }
        print.flush();
    }

    /** One contig size's table: its header (rank 0) and a row per data size. */
    private void table(char section, int kind, boolean get, long contig) {
        Arrays.fill(asiIters, 0); // TEST_ASI_NEW_TEST
        Arrays.fill(asiSize, 0);
        if (rank == 0) {
            final StringBuilder density = new StringBuilder(" density:");
            for (int di = 0; di < densitySteps; di++) {
                density.append(String.format(Locale.ROOT, "%8d%%", (int) ((densitySteps - di) * 100.0 / densitySteps)));
            }
            print.printf(Locale.ROOT, "%n%c: %s %s CONTIGSZ = %d%n%s%n", section, VisPerfOp.NAMES[kind],
                get ? "GET" : "PUT", contig, density);
            print.flush();
        }
        final VisPerfOp op = new VisPerfOp(client, vis, kind, get, nb, peer, local, localBase, contig);
        long lastData = 0;
        for (double rawData = minPayload; rawData <= maxPayload; rawData *= dataFactor) {
            final long data = alignDown((long) rawData, contig);
            if (data != lastData) {
                lastData = data;
                row(op, contig, data);
            }
        }
    }

    private String rowStart(long data) {
        return singleSender ? String.format(Locale.ROOT, "%8d: ", data)
            : String.format(Locale.ROOT, "P%d: %6d: ", rank, data);
    }

    /** One row: a cell per density, each GASNet's warm-up operation, a barrier, the timed loop, a barrier. */
    private void row(VisPerfOp op, long contig, long data) {
        final StringBuilder line = new StringBuilder(rowStart(data));
        for (int di = 0; di < densitySteps; di++) {
            final long lcnt = localContig ? 1 : data / contig;
            final long rcnt = remoteContig ? 1 : data / contig;
            final long stride = (long) (contig * ((double) densitySteps / (densitySteps - di)));
            if (stride * Math.max(lcnt, rcnt) > area) {
                line.append("    -   ");
                continue;
            }
            if (sender) { // the metadata, and some warm-up costs paid
                op.setup(data, localContig, remoteContig, stride, strideLevels);
                op.prepare(1);
                op.run(1);
            }
            client.barrier();
            long n = 0;
            long elapsed = 0;
            if (sender) {
                if (asiNs == 0 || warmIters > 0) {
                    n = Math.max(cellMin, Math.min(cellIters, cellBytes / data));
                    op.prepare(n);
                    for (long done = 0; done < n; done += cellCall) {
                        elapsed += timed(op, Math.min(cellCall, n - done));
                    }
                } else {
                    final int bank = Math.min(di, ASI_BANKS - 1); // TEST_ASI_BEGIN
                    if (asiSize[bank] == 0) {
                        asiIters[bank] = 1;
                        asiSize[bank] = data;
                    } else if (data != asiSize[bank]) {
                        asiIters[bank] = Math.max(1, (long) (asiIters[bank] * ((double) asiSize[bank] / data)));
                        asiSize[bank] = data;
                    }
                    while (true) {
                        n = asiIters[bank];
                        op.prepare(n);
                        final long asiBegin = System.nanoTime();
                        final long begin = System.nanoTime();
                        op.run(n);
                        final long end = System.nanoTime();
                        elapsed = end - begin;
                        final long interval = System.nanoTime() - asiBegin; // TEST_ASI_END
                        if (interval < asiNs) { // too fast, retry
                            asiIters[bank] *= 2;
                            continue;
                        }
                        if (interval > 3 * asiNs) { // too slow, reset next
                            asiSize[bank] = 0;
                        }
                        break;
                    }
                }
            }
            client.barrier();
            if (sender) {
                line.append(bandwidth(data, n, elapsed));
            }
        }
        if (sender) {
            print.println(line);
            print.flush();
        }
        client.barrier();
    }

    /**
     * GASNet's timed {@code DOIT(iters)}, in a method of its own that the warm-up calls too, so that C2 compiles it.
     * {@link #row} runs a few hundred times a pass and stays interpreted; timed there, a cell of 10 one-chunk puts
     * took 100-150 ns more than the puts (an interpreted {@code System.nanoTime} and calls into compiled code).
     */
    private static long timed(VisPerfOp op, long n) {
        final long begin = System.nanoTime();
        op.run(n);
        return System.nanoTime() - begin;
    }

    /** A cell: " %8.3f" MiB/s, as C prints (inf and -nan included). */
    static String bandwidth(long data, long iters, long ns) {
        final double mib = (double) data * iters / MIB;
        final double value = mib / (ns / 1e9);
        if (Double.isNaN(value)) {
            return String.format(Locale.ROOT, " %8s", "-nan");
        }
        if (Double.isInfinite(value)) {
            return String.format(Locale.ROOT, " %8s", "inf");
        }
        return String.format(Locale.ROOT, " %8.3f", value);
    }
}
