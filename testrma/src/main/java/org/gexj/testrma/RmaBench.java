package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.Gex;
import org.gexj.benchutil.JitQuiescence;
import org.gexj.benchutil.TimerGranularity;
import org.gexj.benchutil.WarmupFinish;
import org.gexj.benchutil.WarmupIters;
import org.gexj.coll.Coll;
import org.gexj.coll.ReduceOp;
import org.gexj.coll.Team;
import org.gexj.rma.AtomicType;
import org.gexj.rma.Rma;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;

/**
 * What testsmall and testlarge share, as GASNet's test.h and the two programs have it: the pairing of ranks, the
 * segment and the initiator's buffer, the sections, the size steps, the statistics lines, and GASNet's warm-up. GEX/J
 * adds a silent pass of the enabled sections before the timed one ({@link RmaBenchOptions#warmupIters()}).
 */
abstract class RmaBench {
    final Client client;
    final Rma rma;
    final RmaBenchOptions o;
    private final PrintStream out;
    final int rank;
    final int size;
    int peer;
    boolean sender;
    /** The initiator's buffer: the start of this rank's segment with -in, else memory of its own. */
    MemorySegment msgbuf;
    /** Where the peer's transfers go in its segment. */
    long tgtmem;
    /**
     * Calls of each loop per row in the warm-up pass at most, which shares its iterations out among them. C2 compiles
     * a method whole only after hundreds of calls; with one call per row, a loop stayed in code compiled on stack
     * replacement (or not at all, with few sizes), and each timed call began in C1's code: testsmall's 8-byte put
     * round trip took 11-40 ns over 10000 iterations and 6 ns over 100 million.
     */
    static final int WARMUP_CALLS = 1000;
    /**
     * Iterations per warm-up call at least: C2 compiles a back edge the profile never saw taken as a trap, which the
     * first timed row would hit and deoptimise (1000 warm-up iterations over 1000 calls ran each loop once per call).
     */
    static final int WARMUP_MIN_ITERS = 16;
    /**
     * Warm-up passes, each followed by a wait for the JIT to go quiet. After one, most loops of sections C-F were
     * still in C1's profiling code when the timed pass began (on 2 cores the C2 queue stayed long during the pass, and
     * the tiered policy raises its thresholds with the queue): their rows of 1-32 bytes took 5-10 ns per put on smp
     * instead of 1-2. The later passes start with counters past the thresholds and an empty queue, and make a quarter
     * of the first one's calls (on a network conduit, where each pass takes seconds, the warm-up takes 1.5 times as
     * long as one pass).
     */
    static final int WARMUP_PASSES = 3;
    /**
     * Iterations of the first warm-up call of each loop per row (0 in the timed pass): a timed row's worth at once, so
     * that a flood deeper than the transport's window runs its back-pressure path before the timed pass. In calls of
     * 16 only, the first timed flood on udp took a branch C2 had compiled as a trap ({@code AmClaims.claimRoom}'s full
     * path) and the AM send path was recompiled during the rows.
     */
    private int passFloodIters;
    /** Where rows go: the output, or /dev/null in the warm-up pass. */
    PrintStream print;
    int passIters;
    /** How many times a row runs each of its loops: 1 when timed, up to {@link #WARMUP_CALLS} when warming up. */
    private int passCalls;
    long passMaxSize;
    /** Events of a flood, waited by {@link #awaitAll}; sized by {@link #allocate}. */
    Event[] events;
    private char section;

    RmaBench(Client client, RmaBenchOptions options, PrintStream out) {
        this.client = client;
        this.rma = Rma.of(client);
        this.o = options;
        this.out = out;
        this.rank = client.rank();
        this.size = client.size();
    }

    /** "testsmall" or "testlarge". */
    abstract String program();

    /** The segment the test needs (GASNet's TEST_SEGSZ_EXPR), before -segsz. */
    abstract long segmentBytes();

    /** The peer's transfer offset (tgtmem) in its segment. */
    abstract long targetOffset();

    /** Bytes of the initiator's buffer with -out. */
    abstract long outBytes();

    /** The "Running ..." line after "Running N iterations of ". */
    abstract String running();

    /** The sections, in order, each under {@link #beginSection()}. */
    abstract void sections();

    /** GASNet's warm-up operations (not with -s). */
    abstract void gasnetWarmup();

    /** Allocates what the timed pass needs (event arrays), outside any timed region. */
    abstract void allocate(int iters);

    /** Makes the program's benchmark from parsed options. */
    @FunctionalInterface
    interface Factory {
        RmaBench create(Client client, RmaBenchOptions options, PrintStream out);
    }

    /** A program's main: init the client, run on this rank with stdout, exit with its code. */
    static void main(String clientName, String[] args, Parsed run) {
        int code;
        try (Client client = Gex.init(clientName)) {
            code = run.run(client, args, printStream(new FileOutputStream(FileDescriptor.out)));
        }
        System.exit(code);
    }

    /** A program's run(client, args, out). */
    @FunctionalInterface
    interface Parsed {
        int run(Client client, String[] args, PrintStream out);
    }

    /**
     * Parses {@code args} as {@code program}'s and runs it (collective); a bad argument prints the message and the
     * usage on rank 0.
     *
     * @return the exit code: 0, or 1 for a usage error
     */
    static int run(Client client, String program, long defaultMaxSize, String usage, String[] args, PrintStream out,
                   Factory factory) {
        final RmaBenchOptions options;
        try {
            options = RmaBenchOptions.parse(program, defaultMaxSize, args);
        } catch (IllegalArgumentException e) {
            if (client.rank() == 0) {
                out.println(program + ": " + e.getMessage());
                out.println(usage);
                out.flush();
            }
            return 1;
        }
        return factory.create(client, options, out).run();
    }

    static long alignUp(long v, long a) {
        return (v + a - 1) / a * a;
    }

    /** Runs the program on this rank (collective). @return the exit code */
    int run() {
        final long needed = Math.max(Client.PAGE_SIZE, segmentBytes());
        if (o.segmentSize() != 0 && o.segmentSize() < needed) {
            msg0("ERROR: Command line -segsz " + o.segmentSize() + " is less than " + needed);
            return 1;
        }
        final long segsz = o.segmentSize() == 0 ? needed : alignUp(o.segmentSize(), Client.PAGE_SIZE);
        final MemorySegment segment = client.attachSegment(segsz).memory();
        msg0(TimerGranularity.line());
        if (!o.firstLast() && size > 1 && size % 2 != 0) {
            msg0("WARNING: This test requires a unary or even number of nodes. Test skipped.\n");
            return 0;
        }
        if (o.firstLast()) {
            peer = rank == 0 ? size - 1 : 0;
            sender = o.fullDuplex() ? rank == 0 || rank == size - 1 : rank == 0;
        } else if (size == 1) {
            peer = 0;
            sender = true;
        } else if (o.crossMachine()) {
            if (rank < size / 2) {
                peer = rank + size / 2;
                sender = true;
            } else {
                peer = rank - size / 2;
                sender = o.fullDuplex();
            }
        } else {
            peer = rank % 2 == 1 ? rank - 1 : rank + 1;
            sender = o.fullDuplex() || rank % 2 == 0;
        }
        tgtmem = targetOffset();
        msgbuf = o.inSegment() ? segment : Arena.ofShared().allocate(outBytes(), Client.PAGE_SIZE);
        if (rank == 0) {
            msg("Running " + o.iters() + " iterations of " + (o.firstLast() ? "first/last " : "")
                + (o.fullDuplex() ? "full-duplex " : "") + (o.crossMachine() ? "cross-machine " : "")
                + running() + " for sizes: " + o.minSize() + "..." + o.maxSize() + "\n");
            if (o.segmentSize() > needed) {
                msg("Using non-default segment size " + segsz);
            }
        }
        allocate(o.iters());
        client.barrier();
        warmUp();
        pass(out, o.iters(), 1, o.maxSize());
        client.barrier();
        msg0("done.");
        return 0;
    }

    /**
     * GASNet's warm-up (not with -s) and, with -warmup N, GEX/J's silent passes around it: the priming passes before
     * it, the long passes and the code between rows after it. Collective.
     */
    private void warmUp() {
        final int iters = o.warmup();
        // printing too, to /dev/null, so that the timed pass does not compile it between rows
        try (FileOutputStream devNull = new FileOutputStream("/dev/null")) {
            final PrintStream silent = printStream(devNull);
            // the warm-up's count, not capped by the timed rows' (-m 200 left the data path to C2 mid-pass), in
            // calls no deeper than a timed row's
            final int perCall = Math.min(Math.min(iters, o.iters()), Math.max(WARMUP_MIN_ITERS,
                iters / WARMUP_CALLS));
            final long maxSize = Math.min(o.maxSize(), RmaBenchOptions.WARMUP_MAX_SIZE);
            if (iters > 0) {
                // every loop first sees every size, in turn: compiled after rows of one size only, a loop kept
                // branches on the size that the others then trapped, and it ended in one of two versions, in some
                // runs one whose checks stayed in the loop (64 B-2 KiB smp puts at 7-10 ns instead of 3-7). Before
                // GASNet's warm-up: its 8-byte operations (60,000 in testsmall 10000) made the profile of the copy
                // behind every smp put and get say that other sizes were rare, and C2 then left their copy an
                // out-of-line call (PrintInlining: "low call site frequency"): 64 B-2 KiB put and get loops took
                // 6-28 ns a put instead of 2-11 in half the runs
                passFloodIters = 0;
                for (int k = 0; k < WarmupIters.PRIMING_PASSES; k++) {
                    pass(silent, perCall, 1, maxSize);
                }
            }
            client.barrier();
            if (sender && !o.skipWarmup()) {
                gasnetWarmup();
            }
            client.barrier();
            if (iters > 0) {
                final int calls = Math.max(1, iters / perCall);
                final int flood = Math.min(o.iters(), iters);
                for (int k = 0; k < WARMUP_PASSES; k++) {
                    // only the first pass floods first, so that the last ones run the timed pass's branches
                    passFloodIters = k == 0 && perCall < flood ? flood : 0;
                    pass(silent, perCall, k == 0 ? calls : Math.max(1, calls / 4), maxSize);
                    JitQuiescence.await();
                    client.barrier();
                }
                final WarmupFinish finish = WarmupFinish.scaled(iters, WarmupIters.NETWORK);
                warmRowCode(silent, finish);
                finish.finish(rank, client::barrier);
                // the first size of each section once more, so that the first timed row does not start on cores that
                // only slept and ran barriers (it took 16-18 ns a put on smp in 2 of 3 runs)
                pass(silent, perCall, 1, o.minSize());
                client.barrier();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The code between two timed loops (a barrier, a row's line), which a pass runs a few dozen times: with the
     * numbers varied as real ones are, in every form a row is printed in ({@link WarmupFinish#betweenRows}).
     */
    private void warmRowCode(PrintStream sink, WarmupFinish finish) {
        final PrintStream was = print;
        print = sink;
        finish.betweenRows(i -> {
            client.barrier();
            if (sender) {
                final long bytes = 1L << (i % 21); // 1 B to 1 MiB
                final long timeUs = 1 + (10L << (i % 20)) + i * 2_654_435_761L % 1000; // digits scattered
                stat(bytes, timeUs, (i & 4) == 0 ? "PutNB+DEFER throughput" : "GetNBI latency", (i & 1) == 0,
                    (i & 2) == 0);
            }
        });
        print.flush();
        print = was;
    }

    static PrintStream printStream(FileOutputStream file) {
        return new PrintStream(new BufferedOutputStream(file), false, System.out.charset());
    }

    private void pass(PrintStream to, int iters, int calls, long maxSize) {
        print = to;
        passIters = iters;
        passCalls = calls;
        passMaxSize = maxSize;
        section = 'A' - 1;
        sections();
        print.flush();
    }

    /** TEST_SECTION_BEGIN_ENABLED: moves to the next section letter; is it selected? */
    final boolean beginSection() {
        section++;
        return o.sectionEnabled(section);
    }

    /** The first size of a section's loop. */
    final long firstSize() {
        return o.minSize();
    }

    /** True while {@code sz} is a size of the pass. */
    final boolean inRange(long sz) {
        return sz <= passMaxSize && sz > 0;
    }

    /** GASNet's ADVANCE: doubles, by at most -max-step, and visits the largest size even off the doubling. */
    final long advance(long sz) {
        final long step = Math.min(o.maxStep(), sz);
        if (sz == 0) {
            return 1;
        }
        if (sz < passMaxSize && sz + step > passMaxSize) {
            return passMaxSize;
        }
        return sz + step;
    }

    /** One timed loop of a row: {@link #passIters} operations of {@code nbytes}. @return the microseconds taken */
    @FunctionalInterface
    interface TimedLoop {
        long run(long nbytes);
    }

    /**
     * GASNet's shape of a measurement: barrier, the senders time the put loop, barrier, they print it, time the get
     * loop, barrier, print it. A null loop (or -p/-g) leaves its half out. The loops are methods of their own, so the
     * operation inside each is a direct call, as in GASNet's loops.
     *
     * @param latency print as latency (round trips), else as throughput
     * @param wide    testlarge's widths
     */
    final void row(long nbytes, TimedLoop put, String putName, TimedLoop get, String getName, boolean latency,
                   boolean wide) {
        client.barrier();
        final boolean puts = sender && o.puts() && put != null;
        final boolean gets = sender && o.gets() && get != null;
        final long putTime = puts ? run(put, nbytes) : 0;
        client.barrier();
        if (puts) {
            stat(nbytes, putTime, putName, latency, wide);
        }
        final long getTime = gets ? run(get, nbytes) : 0;
        client.barrier();
        if (gets) {
            stat(nbytes, getTime, getName, latency, wide);
        }
    }

    /** The loop, {@link #passCalls} times: @return the last call's time */
    private long run(TimedLoop loop, long nbytes) {
        long time = 0;
        if (passFloodIters > 0) {
            final int perCall = passIters;
            passIters = passFloodIters;
            loop.run(nbytes);
            passIters = perCall;
        }
        for (int c = 0; c < passCalls; c++) {
            time = loop.run(nbytes);
        }
        return time;
    }

    private void stat(long nbytes, long time, String name, boolean latency, boolean wide) {
        if (latency) {
            latency(nbytes, passIters, time, name, wide);
        } else {
            throughput(nbytes, passIters, time, name, wide);
        }
    }

    /** gex_Event_WaitAll over the first {@code count} events. */
    final void awaitAll(int count) {
        for (int i = 0; i < count; i++) {
            events[i].await();
            events[i] = null;
        }
    }

    /**
     * The largest of the job's ranks' {@code mine} (collective): for warm-ups that all ranks end together. Native
     * buffers, not {@code MemorySegment.ofArray}: the first heap segment loads the JDK's heap segment classes, and
     * that invalidated every compiled method that copies segments (testvisperf's whole VIS path, at its first check
     * that the JIT was quiet, just before the timed pass, which then ran C1's code).
     */
    static long maxOverRanks(Client client, long mine) {
        final Arena arena = Arena.ofAuto();
        final MemorySegment in = arena.allocate(ValueLayout.JAVA_LONG);
        final MemorySegment most = arena.allocate(ValueLayout.JAVA_LONG);
        in.set(ValueLayout.JAVA_LONG, 0, mine);
        Coll.of(client).reduceToAllNb(Team.job(client), most, in, AtomicType.INT64, 1, ReduceOp.MAX).await();
        return most.get(ValueLayout.JAVA_LONG, 0);
    }

    /** Microseconds, as GASNet's TIME(). */
    static long now() {
        return System.nanoTime() / 1000;
    }

    /** GASNet's print_stat with PRINT_LATENCY; {@code wide}: testlarge's widths. */
    final void latency(long bytes, int iters, long timeUs, String name, boolean wide) {
        print.printf(Locale.ROOT, wide ? "%c: %3d - %10d byte : %7d iters, latency %12d us total, %9.3f us ave. (%s)%n"
                : "%c: %2d - %10d byte : %7d iters, latency %10d us total, %9.3f us ave. (%s)%n",
            section, rank, bytes, iters, (int) timeUs, (double) timeUs / iters, name);
        print.flush();
    }

    /** GASNet's print_stat with PRINT_THROUGHPUT (KB or MB = 2^10 or 2^20 bytes per second). */
    final void throughput(long bytes, int iters, long timeUs, String name, boolean wide) {
        final double rate = (int) timeUs == 0 ? 0.0
            : (1_000_000.0 * bytes * iters / (o.unitsMB() ? 1024.0 * 1024.0 : 1024.0)) / (int) timeUs;
        final String ranks = wide ? "%c: %3d" : "%c: %2d";
        print.printf(Locale.ROOT, ranks + (o.unitsMB() ? " - %10d byte : %7d iters, throughput %11.6f MB/sec (%s)%n"
                : " - %10d byte : %7d iters, throughput %11.3f KB/sec (%s)%n"),
            section, rank, bytes, iters, rate, name);
        print.flush();
    }

    /** MSG: "node r/n text". */
    final void msg(String text) {
        out.print("node " + rank + "/" + size + " " + text + "\n");
        out.flush();
    }

    /** MSG0: the text, on rank 0 only. */
    final void msg0(String text) {
        if (rank == 0) {
            out.print(text + "\n");
            out.flush();
        }
    }
}
