package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.benchutil.JitQuiescence;
import org.gexj.benchutil.TimerGranularity;
import org.gexj.benchutil.WarmupFinish;
import org.gexj.coll.Coll;
import org.gexj.coll.ReduceOp;
import org.gexj.coll.Team;
import org.gexj.rma.AtomicType;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;
import java.util.function.IntConsumer;

/**
 * GASNet's testcollperf: the correctness and the time per operation of the collectives over the job team at growing
 * sizes. Sections A-I are GASNet's nine sync modes ({@code no/no} ... {@code all/all}: a barrier before the loop for
 * IN_NOSYNC, after it for OUT_NOSYNC, inside the timed region as there); in each, for every size from 1 int growing
 * by {@code -szfactor} up to the largest, it runs GASNet's verification loops (outer times, inner collectives on
 * distinct slices, every element checked) and, with performance iterations, its timed loops of broadcast,
 * broadcast_NB, reduce (to one), reduce_NB, reduce_all and reduce_all_NB, each printed as GASNet's
 * {@code print_timer} line on rank 0 (its time in C's {@code %g}, {@link CollPerfFormat}). The reductions are GASNet's
 * calls: the built-in sum of 32-bit ints ({@code GEX_DT_I32}, {@code GEX_OP_ADD}), here {@link AtomicType#INT32} and
 * {@link ReduceOp#ADD}. Same command line, defaults, usage, header, sections, rows, PASS lines, final lines and exit
 * code 1 on a wrong result (after GASNet's message) as GASNet's; barriers are the job team's
 * {@link Coll#barrier(Team)}, as test.h's {@code BARRIER()} is {@code gex_Coll_BarrierNB}.
 *
 * <p>Not ported, as GEX/J has no counterpart: GASNet's scatter, gather, gather_all and exchange (and their _NB forms)
 * are GASNet-1 legacy collectives ({@code gasnet_coll_*}), and GEX/J implements GASNet-EX's {@code gex_Coll} API only
 * (barrier, broadcast, reduce-to-one, reduce-to-all): rank 0 prints {@link #SKIPPED} once instead. GASNet's
 * {@code (thread count per node)} argument of its PAR build is absent (GEX/J runs one image per process; GASNet
 * itself reduces the count to 1, its collectives having no multi-image support), so the command line is that of its
 * SEQ build. GASNet's tuning and profile dumps (empty unless asked for) are not made.
 *
 * <p>Other differences: the configuration and host lines of GASNet's test_init are not printed (they describe
 * GASNet's build), only its timer line; GASNet's largest segment ({@code gasnet_getMaxGlobalSegmentSize}) is
 * {@link Client#maxSegmentSize()}; {@code -dst-in} is accepted as the usage text says (GASNet's parser tests
 * {@code -src-in} twice, so there it is a usage error); arguments that are not numbers, negative counts and a
 * {@code -szfactor} not above 1 are usage errors (GASNet's atoi/atof would read 0, and its size loop would not end);
 * the NB events are allocated once, not per size; a blank {@code GASNET_COLL_ROOTED_GEOM} counts as unset. The
 * GEX/J-only {@code -warmup N} (with performance iterations) first runs every enabled section silently, with N timed
 * iterations per row at most and one outer verification iteration, then {@link WarmupFinish}, so that the JIT has
 * compiled the loops before the first timed row.
 */
public final class TestCollPerf {
    static final String USAGE = "Usage: testcollperf [options] (max data size) (outer_verification_iters) "
        + "(inner_verification_iters) (performance_iters) (test sections)\n"
        + "  The '-{src,dst}-{in,out} options selects whether src and dst\n"
        + "   buffers are in the GASNet segment or not (defaults are 'in').\n"
        + "  -szfactor <f>   \n"
        + "            selects f as growth factor for data sizes.\n"
        + "  -warmup N (GEX/J) first runs every enabled section silently, each timed loop with N\n"
        + "            iterations at most; default 1000, 0 = off.\n"
        + "  GEX/J runs one image per process: there is no (thread count per node) argument.";
    /** The line rank 0 prints once for the sections GASNet's test has and GEX/J cannot run. */
    static final String SKIPPED = "NOTE: scatter, gather, gather_all and exchange (and their _NB forms) are skipped: "
        + "they are GASNet-1 legacy collectives, and GEX/J has GASNet-EX's gex_Coll API only (barrier, broadcast, "
        + "reduce-to-one, reduce-to-all)";
    /** The default of {@code -warmup}: timed iterations per loop of the silent pass. */
    static final int WARMUP = 1000;
    /** Calls of each timed loop in {@link #primeLoops}, and the iterations of each call. */
    private static final int PRIME_CALLS = 3000;
    private static final int PRIME_ITERS = 4;
    /** Silent passes after the first, at most, until one in which no rank's JIT compiled more than this. */
    private static final int MAX_EXTRA_PASSES = 6;
    private static final long QUIET_PASS_MS = 5;
    /** GASNet's sync mode strings (fill_flag_str), one per section. */
    static final String[] SYNC_MODES = {"no/no", "no/my", "no/all", "my/no", "my/my", "my/all", "all/no", "all/my",
        "all/all"};
    private static final int DEFAULT_OUTER_VERIFICATION_ITERS = 2;
    private static final int DEFAULT_INNER_VERIFICATION_ITERS = 50;
    private static final long DEFAULT_MAX_DATA_SIZE = 32768;
    private static final int ROOT_THREAD = 0;
    private static final int INT = Integer.BYTES;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT;

    private final Client client;
    private final Coll coll;
    private final Team team;
    private final PrintStream out;
    private final int mythread;
    /** GASNet's THREADS: the team's size (one image per process). */
    private final int threads;
    // the command line, GASNet's names
    private double szfactor = 2;
    private boolean srcInSegment = true;
    private boolean dstInSegment = true;
    private int warmup = WARMUP;
    private long maxDataSize;
    private int outerVerificationIters;
    private int innerVerificationIters;
    private int performanceIters;
    private String sections = "";
    // the run
    private String tree;
    private MemorySegment src;
    private MemorySegment dst;
    private Event[] handles;
    /** Where rows and PASS lines go: the output, or nowhere in the warm-up pass. */
    private PrintStream print;
    private int passPerformanceIters;
    private int passOuterIters;
    private char section;

    private TestCollPerf(Client client, PrintStream out) {
        this.client = client;
        this.coll = Coll.of(client);
        this.team = Team.job(client);
        this.out = out;
        this.mythread = team.rank();
        this.threads = team.size();
    }

    public static void main(String[] args) {
        RmaBench.main("TESTCOLLPERF", args, TestCollPerf::run);
    }

    /** Runs testcollperf on this rank (collective). @return 0, or 1 for a usage error or a too small segment */
    public static int run(Client client, String[] args, PrintStream out) {
        final TestCollPerf test = new TestCollPerf(client, out);
        if (!test.parse(args)) {
            if (client.rank() == 0) {
                out.println(USAGE);
                out.flush();
            }
            return 1;
        }
        return test.run();
    }

    /** GASNet's argument loop. @return false for a usage error */
    private boolean parse(String[] args) {
        boolean help = false;
        int arg = 0;
        try {
            while (arg < args.length && args[arg].startsWith("-")) {
                switch (args[arg++]) {
                    case "-szfactor" -> {
                        szfactor = Double.parseDouble(args[arg++]);
                        help |= !(szfactor > 1) || Double.isInfinite(szfactor);
                    }
                    case "-src-in" -> srcInSegment = true;
                    case "-src-out" -> srcInSegment = false;
                    case "-dst-in" -> dstInSegment = true;
                    case "-dst-out" -> dstInSegment = false;
                    case "-warmup" -> warmup = count(args[arg++]);
                    default -> help = true;
                }
            }
            maxDataSize = arg < args.length ? Math.max(count(args[arg++]) / INT, 1) : DEFAULT_MAX_DATA_SIZE / INT;
            outerVerificationIters = arg < args.length ? Math.max(1, count(args[arg++]))
                : DEFAULT_OUTER_VERIFICATION_ITERS;
            innerVerificationIters = arg < args.length ? Math.max(1, count(args[arg++]))
                : DEFAULT_INNER_VERIFICATION_ITERS;
            performanceIters = arg < args.length ? count(args[arg++]) : 0;
        } catch (RuntimeException e) { // a missing value, or not a number
            return false;
        }
        if (arg < args.length) {
            sections = args[arg++].toUpperCase(Locale.ROOT); // TEST_SECTION_PARSE
        }
        return !help && arg == args.length;
    }

    /** A whole number, at least 0, else IllegalArgumentException (NumberFormatException is one). */
    private static int count(String s) {
        final int v = Integer.parseInt(s);
        if (v < 0) {
            throw new IllegalArgumentException(s);
        }
        return v;
    }

    /** The header, the scaling to the segment, the buffers; then the warm-up and the timed pass. */
    private int run() {
        if (performanceIters != 0 && client.rank() == 0) {
            msg0(TimerGranularity.line());
        }
        msg0("command line args:\n"
            + "    max_data_size = " + maxDataSize * INT + "\n"
            + "    bytes outer_verification_iters = " + outerVerificationIters + "\n"
            + "    inner_verification_iters = " + innerVerificationIters + "\n"
            + "    performance_iters = " + performanceIters + "\n"
            + "    threads_per_node = 1\n"
            + "    szfactor = " + CollPerfFormat.fixed2(szfactor) + "\n"
            + "    src addresses " + (srcInSegment ? "in" : "out") + "side the segment\n"
            + "    dst addresses " + (dstInSegment ? "in" : "out") + "side the segment\n");
        if (!fitSegment()) {
            return 1;
        }
        msg0(SKIPPED);
        tree = client.config().get("GASNET_COLL_ROOTED_GEOM", "(null)");
        final long perThread = (long) INT * maxDataSize * innerVerificationIters * threads; // SEG_PER_THREAD
        final long segment = ((srcInSegment ? 1 : 0) + (dstInSegment ? 1 : 0)) * perThread;
        final MemorySegment seg = segment == 0 ? null
            : client.attachSegment(RmaBench.alignUp(segment, Client.PAGE_SIZE)).memory();
        try (Arena arena = Arena.ofShared()) {
            src = srcInSegment ? seg.asSlice(0, perThread) : arena.allocate(perThread, INT);
            dst = dstInSegment ? seg.asSlice(srcInSegment ? perThread : 0, perThread) : arena.allocate(perThread, INT);
            handles = new Event[performanceIters];
            barrier();
            if (performanceIters > 0 && warmup > 0) {
                warmUp();
            }
            pass(out, performanceIters, outerVerificationIters);
        }
        msg("thread " + mythread + "> done");
        barrier();
        msg("done.");
        return 0;
    }

    /**
     * GASNet's check that both buffers take at most half the largest segment: else fewer inner iterations and more
     * outer ones, then smaller sizes. @return false if not even one int fits (the error printed)
     */
    private boolean fitSegment() {
        long currReq = request();
        final long maxMemUsage = client.maxSegmentSize() / 2;
        if (currReq <= maxMemUsage) {
            return true;
        }
        msg0("WARNING: inner iterations too large.\n");
        msg0("Scaling down inner iterations and scaling up outer iterations to compensate\n");
        while (currReq > maxMemUsage && innerVerificationIters > 1) {
            innerVerificationIters /= 2;
            outerVerificationIters *= 2;
            currReq = request();
        }
        if (innerVerificationIters == 1 && currReq > maxMemUsage) {
            msg0("WARNING: scaled inner iterations down to 1 but still not enough room in segment.");
            msg0("WARNING: scaling down datasize");
        }
        while (innerVerificationIters == 1 && currReq > maxMemUsage && maxDataSize > 0) {
            maxDataSize /= 2;
            currReq = request();
        }
        if (maxDataSize == 0) {
            msg0("ERROR: Segment too small ... can't run testcollperf");
            return false;
        }
        msg0("adjusted args: max_data_size=" + maxDataSize * INT + " bytes outer_verification_iters="
            + outerVerificationIters + " inner_verification_iters=" + innerVerificationIters + " performance_iters="
            + performanceIters + " threads_per_node=1 ");
        return true;
    }

    /** GASNet's curr_req: both buffers of every thread of this process. */
    private long request() {
        return (long) innerVerificationIters * threads * INT * maxDataSize * 2;
    }

    /**
     * The silent pass of {@code -warmup} (each timed loop with at most {@link #warmup} iterations, one outer
     * verification iteration), then the end of the warm-up: the code between rows, the barriers, the JIT's quiet
     * ({@link WarmupFinish}). Collective.
     */
    private void warmUp() {
        // rows to /dev/null through a stream like the output's, as testqueue's warm-up; only the file is closed
        try (FileOutputStream devNull = new FileOutputStream("/dev/null")) {
            final PrintStream sink = RmaBench.printStream(devNull);
            pass(sink, Math.min(warmup, performanceIters), 1);
            primeLoops();
            // more passes while the last one still compiled: C2 compiling the verification between timed loops (a
            // large method, tens of ms of a core) during the timed pass cost a row 20-90 us per collective
            JitQuiescence.repeatWhileCompiling(() -> pass(sink, Math.min(warmup, performanceIters), 1),
                ms -> RmaBench.maxOverRanks(client, ms), MAX_EXTRA_PASSES, QUIET_PASS_MS);
            final WarmupFinish finish = WarmupFinish.scaled(warmup, WARMUP);
            finish.betweenRows(i -> {
                barrier();
                // digits scattered over the forms %g takes
                printTimer("broadcast", SYNC_MODES[i % SYNC_MODES.length], 1 << (i % 14),
                    1 + i * 2_654_435_761L % 100_000_000);
            });
            finish.finish(mythread, this::barrier);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }


    /**
     * Calls each timed loop often, with a few iterations, over every size, so that the JIT compiles the loop methods
     * themselves before the timed pass. The silent pass calls each only about a hundred times: they stayed in C1's
     * profiling code, and C2 compiled them (an on-stack replacement, then the method) during the first timed rows,
     * on a core a rank needed: those rows took 3-30 us per collective instead of 0.3-1. Collective.
     */
    private void primeLoops() {
        final int saved = passPerformanceIters;
        passPerformanceIters = Math.min(PRIME_ITERS, performanceIters);
        final IntConsumer[] loops = {this::broadcast, this::broadcastNb, this::reduce, this::reduceNb, this::reduceAll,
            this::reduceAllNb};
        final int sizes = 64 - Long.numberOfLeadingZeros(maxDataSize);
        for (int call = 0; call < PRIME_CALLS; call++) {
            final int nelem = 1 << (call % sizes);
            for (IntConsumer loop : loops) {
                loop.accept(nelem);
            }
        }
        passPerformanceIters = saved;
    }

    /** thread_main's loop: every enabled section (sync mode) in GASNet's order, each over every size. */
    private void pass(PrintStream to, int perf, int outer) {
        print = to;
        passPerformanceIters = perf;
        passOuterIters = outer;
        section = 'A' - 1;
        for (int mode = 0; mode < SYNC_MODES.length; mode++) {
            barrier();
            section++; // TEST_SECTION_BEGIN
            barrier();
            if (!sections.isEmpty() && sections.indexOf(section) < 0) {
                continue;
            }
            barrier();
            double sz;
            for (sz = 1; sz <= maxDataSize; sz *= szfactor) {
                runSingleAddrTest((int) sz, mode);
            }
            if (mythread == 0) {
                print.print(String.format(Locale.ROOT, "%c: sync_mode: %s %d-%d bytes root: %d.  PASS\n", section,
                    SYNC_MODES[mode], INT, INT * (long) (sz / szfactor), ROOT_THREAD));
                print.flush();
            }
        }
        print.flush();
    }

    /** run_SINGLE_ADDR_test: each collective's verification loops, then its blocking and NB timed loops. */
    private void runSingleAddrTest(int nelem, int mode) {
        final String sync = SYNC_MODES[mode];
        final boolean inNoSync = mode < 3;
        final boolean outNoSync = mode % 3 == 0;
        final long elems = (long) nelem * innerVerificationIters;
        final long nbytes = (long) INT * nelem;

        for (int k = 0; k < passOuterIters; k++) { // BROADCAST
            barrier();
            if (mythread == ROOT_THREAD) {
                for (long i = 0; i < elems; i++) {
                    src.setAtIndex(I32, i, (int) (42 + i));
                }
            }
            fill(elems);
            if (inNoSync) {
                barrier();
            }
            for (int i = 0; i < innerVerificationIters; i++) {
                coll.broadcastNb(team, ROOT_THREAD, dst.asSlice(i * nbytes), src.asSlice(i * nbytes), nbytes).await();
            }
            if (outNoSync) {
                barrier();
            }
            for (long i = 0; i < elems; i++) {
                final int expected = (int) (42 + i);
                final int got = dst.getAtIndex(I32, i);
                if (got != expected) {
                    fail(mythread + "> broadcast verification @ iteration: " + (int) (i / nelem) + " ... expected "
                        + expected + " got " + got);
                }
            }
        }
        timed("broadcast", sync, nelem, inNoSync, outNoSync, this::broadcast);
        timed("broadcast_NB", sync, nelem, inNoSync, outNoSync, this::broadcastNb);

        for (int k = 0; k < passOuterIters; k++) { // REDUCE
            barrier();
            fillSources(nelem);
            if (mythread == ROOT_THREAD) {
                fill(elems * threads);
            }
            if (inNoSync) {
                barrier();
            }
            for (int i = 0; i < innerVerificationIters; i++) {
                coll.reduceToOneNb(team, ROOT_THREAD, dst.asSlice(i * nbytes), src.asSlice(i * nbytes),
                    AtomicType.INT32, nelem, ReduceOp.ADD).await();
            }
            if (outNoSync) {
                barrier();
            }
            if (mythread == ROOT_THREAD) {
                checkSums("reduce", nelem);
            }
        }
        timed("reduce", sync, nelem, inNoSync, outNoSync, this::reduce);
        timed("reduce_NB", sync, nelem, inNoSync, outNoSync, this::reduceNb);

        for (int k = 0; k < passOuterIters; k++) { // REDUCE_ALL
            barrier();
            fillSources(nelem);
            fill(elems * threads);
            if (inNoSync) {
                barrier();
            }
            for (int i = 0; i < innerVerificationIters; i++) {
                coll.reduceToAllNb(team, dst.asSlice(i * nbytes), src.asSlice(i * nbytes), AtomicType.INT32, nelem,
                    ReduceOp.ADD).await();
            }
            if (outNoSync) {
                barrier();
            }
            checkSums("reduce_all", nelem);
        }
        timed("reduce_all", sync, nelem, inNoSync, outNoSync, this::reduceAll);
        timed("reduce_all_NB", sync, nelem, inNoSync, outNoSync, this::reduceAllNb);
        barrier();
    }

    /** dst's first {@code count} ints to -1, so that a collective that wrote nothing fails the check. */
    private void fill(long count) {
        for (long i = 0; i < count; i++) {
            dst.setAtIndex(I32, i, -1);
        }
    }

    /** Every rank's reduction sources: element j of inner iteration i is 42(i+1)+j. */
    private void fillSources(int nelem) {
        for (int i = 0; i < innerVerificationIters; i++) {
            for (int j = 0; j < nelem; j++) {
                src.setAtIndex(I32, (long) i * nelem + j, 42 * (i + 1) + j);
            }
        }
    }

    /** The reductions' check: the sum over the team of 42(i+1)+j, in C's int arithmetic. */
    private void checkSums(String name, int nelem) {
        for (int i = 0; i < innerVerificationIters; i++) {
            for (int j = 0; j < nelem; j++) {
                final int expected = (42 * (i + 1) + j) * threads;
                final int got = dst.getAtIndex(I32, (long) i * nelem + j);
                if (got != expected) {
                    fail(mythread + "> " + name + " verification @ iteration: " + i + "," + j + " ... expected "
                        + expected + " got " + got);
                }
            }
        }
    }

    /**
     * A timed loop as GASNet's: barrier, the clock, the IN_NOSYNC barrier, the loop, the OUT_NOSYNC barrier, the
     * clock, barrier, print_timer. The loops are methods of their own, each with its collective a direct call.
     */
    private void timed(String name, String sync, int nelem, boolean inNoSync, boolean outNoSync, IntConsumer loop) {
        barrier();
        final long begin = System.nanoTime();
        if (inNoSync) {
            barrier();
        }
        loop.accept(nelem);
        if (outNoSync) {
            barrier();
        }
        final long end = System.nanoTime() - begin;
        barrier();
        if (passPerformanceIters > 0) {
            printTimer(name, sync, nelem, end);
        }
    }

    private void broadcast(int nelem) {
        final long nbytes = (long) INT * nelem;
        for (int i = 0; i < passPerformanceIters; i++) {
            coll.broadcastNb(team, ROOT_THREAD, dst, src, nbytes).await();
        }
    }

    private void broadcastNb(int nelem) {
        final long nbytes = (long) INT * nelem;
        for (int i = 0; i < passPerformanceIters; i++) {
            handles[i] = coll.broadcastNb(team, ROOT_THREAD, dst, src, nbytes);
        }
        awaitAll();
    }

    private void reduce(int nelem) {
        for (int i = 0; i < passPerformanceIters; i++) {
            coll.reduceToOneNb(team, ROOT_THREAD, dst, src, AtomicType.INT32, nelem, ReduceOp.ADD).await();
        }
    }

    private void reduceNb(int nelem) {
        for (int i = 0; i < passPerformanceIters; i++) {
            handles[i] = coll.reduceToOneNb(team, ROOT_THREAD, dst, src, AtomicType.INT32, nelem, ReduceOp.ADD);
        }
        awaitAll();
    }

    private void reduceAll(int nelem) {
        for (int i = 0; i < passPerformanceIters; i++) {
            coll.reduceToAllNb(team, dst, src, AtomicType.INT32, nelem, ReduceOp.ADD).await();
        }
    }

    private void reduceAllNb(int nelem) {
        for (int i = 0; i < passPerformanceIters; i++) {
            handles[i] = coll.reduceToAllNb(team, dst, src, AtomicType.INT32, nelem, ReduceOp.ADD);
        }
        awaitAll();
    }

    /** gex_Event_WaitAll over the pass's events. */
    private void awaitAll() {
        for (int i = 0; i < passPerformanceIters; i++) {
            handles[i].await();
            handles[i] = null;
        }
    }

    /** print_timer (MSG0): rank 0's time per operation, in whole microseconds over the loop as GASNet's ticks. */
    private void printTimer(String name, String sync, int nelem, long ns) {
        if (mythread != 0) {
            return;
        }
        final double us = (double) (ns / 1000) / passPerformanceIters;
        print.print(String.format(Locale.ROOT, "%c: %d> %s/%s %s sync_mode: (%s) tree: %s size: %d bytes time: %s us\n",
            section, mythread, "LOCAL", "SINGLE-addr", name, sync, tree, (long) INT * nelem, CollPerfFormat.g(us)));
        print.flush();
    }

    /** COLL_BARRIER: test.h's BARRIER(), a gex_Coll_BarrierNB over the job team, waited. */
    private void barrier() {
        coll.barrier(team);
    }

    /** A wrong result: GASNet's MSG, then ERROR_EXIT (gasnet_exit(1)). Never returns. */
    private void fail(String text) {
        msg(text);
        client.exit(1);
        throw new IllegalStateException("unreachable: exit returned");
    }

    /** MSG: "node r/n text". */
    private void msg(String text) {
        out.print("node " + client.rank() + "/" + client.size() + " " + text + "\n");
        out.flush();
    }

    /** MSG0: the text, on rank 0 only. */
    private void msg0(String text) {
        if (client.rank() == 0) {
            out.print(text + "\n");
            out.flush();
        }
    }
}
