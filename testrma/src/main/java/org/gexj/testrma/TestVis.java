package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.rma.Rma;
import org.gexj.rma.Vis;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * GASNet's testvis: the correctness test of non-contiguous put and get ({@link Vis}). Each rank works with its
 * partner, the next rank (GASNet's default pairing): random vector, indexed, linear strided and transpositional
 * strided puts and gets, blocking, then non-blocking ones in flight together, each checked against a contiguous copy
 * of the data made by another VIS operation, and the read-only areas checked after every section. Same command line
 * ({@code testvis [options] (iters) (seed)}), defaults, sections, messages and progress lines as GASNet's; a wrong
 * byte prints GASNet's mismatch report and ends the job with exit code 1. The random choices come from test.h's
 * LCG64 generator in GASNet's order, so a seed makes the same operations as GASNet's testvis compiled with
 * {@code PC_FREQ=0}.
 *
 * <p>Differences from GASNet's: there are no peer-completion handlers ({@code gex_VIS_SetPeerCompletionHandler}), so
 * the header says {@code PC_FREQ=0} and a line says the tests of them are skipped; VIS takes no flags, so the
 * {@code GEX_FLAG_IMMEDIATE} variants are not run (their random draws are made) and the "LC overwrite" tests, which
 * clear a put's source after its local completion, clear it after its completion (GEX/J's only one); VEC_SZ is 1,
 * GASNet's default; the test_init lines (configuration, host names) are not printed; the usage goes to the output of
 * rank 0, and arguments that are not numbers or are negative are usage errors, as is {@code -mc} below 5 (GASNet's
 * indexed test divides by zero then). Ranks are job ranks (GASNet's {@code RENUMBER_TEAM} option has no counterpart:
 * GEX/J has no teams).
 */
public final class TestVis extends VisRun {
    static final String USAGE = "Usage: testvis [options] (iters) (seed)\n"
        + " -v/-i/-s/-x/-n  run vector/indexed/strided/transpositional/non-blocking tests (defaults to all)\n"
        + " -d        disable correctness verification checks\n"
        + " -o        one-way (half duplex) mode\n"
        + " -t        enable timing output\n"
        + " -mm <n>   segment space to use (in MB)\n"
        + " -mv <n>   max vector length (in elements)\n"
        + " -mi <n>   max index addr list length (in elements)\n"
        + " -ms <n>   max striding dimensions\n"
        + " -mn <n>   max in-flight non-blocking operations\n"
        + " -mc <n>   max chunk size (in bytes)\n"
        + " iters     number of testing iterations\n"
        + " seed      seed offset for PRNG ";
    static final int RUN_VECTOR = 1;
    static final int RUN_INDEXED = 2;
    static final int RUN_STRIDED = 4;
    static final int RUN_TRANSPOSE = 8;
    static final int RUN_NB = 16;
    /** The least {@code -mc}: rand_chunkelem draws a factor in [1, max_chunksz / 5], empty below (GASNet crashes). */
    private static final long MIN_CHUNKSZ = 5;
    /** TEST_PROGRESS_STEPS. */
    private static final int PROGRESS_STEPS = 10;

    private long segsz = 16 * 1024 * 1024;
    private int iters = 100;
    private int seedoffset;
    private int runtests;
    private boolean halfduplex;
    // TEST_PROGRESS_BAR's state
    private int breakwidth;
    private int breakpt;

    private TestVis(Client client, PrintStream out) {
        super(client, out);
    }

    public static void main(String[] args) {
        RmaBench.main("TESTVIS", args, TestVis::run);
    }

    /** Runs testvis on this rank (collective). @return 0, or 1 for a usage error (a failed check exits the job) */
    public static int run(Client client, String[] args, PrintStream out) {
        final TestVis test = new TestVis(client, out);
        if (!test.parse(args)) {
            if (client.rank() == 0) {
                out.println(USAGE);
                out.flush();
            }
            return 1;
        }
        return test.all();
    }

    /** GASNet's argument loop. @return false for a usage error */
    private boolean parse(String[] args) {
        for (String a : args) { // test_init's help options, anywhere
            if (a.equals("-h") || a.equals("--h") || a.equals("-help") || a.equals("--help")) {
                return false;
            }
        }
        int i = 0;
        try {
            for (; i < args.length; i++) {
                final String a = args[i];
                if (a.length() >= 2 && a.charAt(0) == '-' && Character.toLowerCase(a.charAt(1)) == 'm') {
                    if (a.length() < 3) {
                        return false;
                    }
                    String value = a.substring(3); // -mv10 or -mv 10
                    if (value.isEmpty()) {
                        if (i + 1 >= args.length) {
                            return false;
                        }
                        value = args[++i];
                    }
                    final long argval = RmaBenchOptions.size(value, 1, a);
                    if (argval == 0) {
                        return false;
                    }
                    switch (Character.toLowerCase(a.charAt(2))) {
                        case 'm' -> segsz = RmaBenchOptions.size(value, 1 << 20, a);
                        case 'v' -> maxVeclen = argval;
                        case 'i' -> maxIdxlen = argval;
                        case 's' -> maxStridedim = argval;
                        case 'c' -> maxChunksz = argval;
                        case 'n' -> maxInflightOps = argval;
                        default -> {
                            return false;
                        }
                    }
                } else if (a.startsWith("-")) {
                    for (int j = 1; j < a.length(); j++) {
                        switch (Character.toLowerCase(a.charAt(j))) {
                            case 'v' -> runtests |= RUN_VECTOR;
                            case 'i' -> runtests |= RUN_INDEXED;
                            case 's' -> runtests |= RUN_STRIDED;
                            case 'x' -> runtests |= RUN_TRANSPOSE;
                            case 'n' -> runtests |= RUN_NB;
                            case 'd' -> verify = false;
                            case 'o' -> halfduplex = true;
                            case 't' -> showTiming = true;
                            default -> {
                                return false;
                            }
                        }
                    }
                } else {
                    break;
                }
            }
        } catch (IllegalArgumentException e) { // not a number, or negative
            return false;
        }
        if (maxChunksz < MIN_CHUNKSZ) {
            return false;
        }
        if (runtests == 0) {
            runtests = RUN_VECTOR | RUN_INDEXED | RUN_STRIDED | RUN_TRANSPOSE | RUN_NB;
        }
        if (i < args.length) {
            iters = TestRatomic.atoi(args[i++]);
        }
        if (i < args.length) {
            seedoffset = TestRatomic.atoi(args[i++]);
        }
        return i == args.length;
    }

    /** The segment, the heap buffer, the seed, the header; then doit and "done.". */
    private int all() {
        final long bytes = RmaBench.alignUp(segsz, Client.PAGE_SIZE); // TEST_SEGSZ
        client.attachSegment(bytes);
        final MemorySegment seg = client.segment().memory();
        try (Arena arena = Arena.ofShared()) {
            setUp(seg, arena.allocate(bytes, Client.PAGE_SIZE), bytes); // GASNet's heapseg: TEST_SEGSZ of malloc
            if (seedoffset == 0) { // GASNet's TEST_BCAST of rank 0's, through rank 0's segment
                if (mynode == 0) {
                    seg.set(ValueLayout.JAVA_INT, 0, (int) (System.nanoTime() / 1000 & 0xFFFF));
                }
                client.barrier();
                seedoffset = (int) Rma.of(client).getVal(0, 0, 4);
                client.barrier(); // before rank 0 initializes its read area
            }
            rnd = new VisRandom(mynode + seedoffset);
            msg(String.format(Locale.ROOT, "running %d iterations of %s%s%s%s%s%s test (seed=%d, VEC_SZ=%d, "
                    + "PC_FREQ=%d, segsz=%s)%s...", iters, halfduplex ? "half-duplex " : "",
                (runtests & RUN_VECTOR) != 0 ? "V" : "", (runtests & RUN_INDEXED) != 0 ? "I" : "",
                (runtests & RUN_STRIDED) != 0 ? "S" : "", (runtests & RUN_TRANSPOSE) != 0 ? "X" : "",
                (runtests & RUN_NB) != 0 ? "N" : "", mynode + seedoffset, VEC_SZ, 0, formatNumber(segsz),
                verify ? "" : " (verification disabled)"));
            msg0("Skipping peer-completion handler tests (gex_VIS_SetPeerCompletionHandler): GEX/J's VIS has none");
            msg0("Skipping GEX_FLAG_IMMEDIATE and GEX_FLAG_ENABLE_LEAF_LC variants: GEX/J's VIS takes no flags (the LC"
                + " overwrite tests clear a put's source after its completion)");
            if (halfduplex && mynode % 2 == 1) {
                runtests = 0; // odd nodes passive
            }
            doit();
        }
        msg("done.");
        return 0;
    }

    /** GASNet's doit: the known values, then each section in turn, every rank through the same barriers. */
    private void doit() {
        if (verify) {
            initReadAreas();
        }
        client.barrier();
        final VisBlockingTests blocking = new VisBlockingTests(this);
        section((runtests & RUN_VECTOR) != 0, "Vector... (max_veclen=" + maxVeclen + ")", "v", blocking::vector);
        section((runtests & RUN_INDEXED) != 0, "Indexed... (max_idxlen=" + maxIdxlen + ", max_chunksz=" + maxChunksz
            + ")", "i", blocking::indexed);
        section((runtests & RUN_STRIDED) != 0, "Strided (linear)... (max_stridedim=" + maxStridedim + ")", "s",
            blocking::strided);
        section((runtests & RUN_TRANSPOSE) != 0 && maxStridedim >= 2, "Strided (transpositional)... (max_stridedim="
            + maxStridedim + ")", "x", blocking::transpose);
        final VisNbTest nb = new VisNbTest(this);
        section((runtests & RUN_NB) != 0, "Non-blocking tests... (max_inflight_ops=" + maxInflightOps + ")", null,
            timing -> nb.iteration());
    }

    /**
     * One section: its title, its iterations with the progress bar, a barrier, checkmem and the timing lines (a
     * rank that does not run it only takes the barrier); then GASNet's verify_pc_arrivals, here its barrier only
     * (no peer completions to count), and the barrier between sections.
     */
    private void section(boolean enabled, String title, String flavor, Consumer<VisTiming> iteration) {
        if (enabled) {
            final VisTiming timing = new VisTiming();
            msg(title);
            for (int iter = 0; iter < iters; iter++) {
                iteration.accept(timing);
                progress(iter);
            }
            client.barrier();
            checkmem();
            if (flavor != null) {
                timing.output(this, flavor);
            }
        } else {
            client.barrier();
        }
        client.barrier();
        client.barrier();
    }

    /** TEST_PROGRESS_BAR: rank 0 prints the percentage done at every tenth of the iterations (every one if fewer). */
    private void progress(int cur) {
        if (cur == 0) {
            breakwidth = Math.max(1, iters / PROGRESS_STEPS);
            breakpt = breakwidth;
        }
        if (cur + 1 == breakpt) {
            msg0((int) (100.0 * (cur + 1) / iters) + "%");
            breakpt += breakwidth;
        }
    }

    /** gasnett_format_number as a memory size: "16 MB", "1536 KB", "0x..." from 2^50 on. */
    static String formatNumber(long value) {
        final String neg = value < 0 ? "-" : "";
        final long val = Math.abs(value);
        if (val >= 1L << 50) {
            return "0x" + Long.toHexString(value);
        }
        final String[] units = {" TB", " GB", " MB", " KB", " B"};
        for (int k = 0; k < units.length; k++) {
            final long div = 1L << (10 * (4 - k));
            if (val >= 10 * div || val >= div && val % div == 0) {
                return neg + val / div + units[k];
            }
        }
        return neg + val;
    }
}
