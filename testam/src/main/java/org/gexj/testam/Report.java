package org.gexj.testam;

import org.gexj.Client;
import org.gexj.am.Am;
import org.gexj.benchutil.Progress;
import org.gexj.benchutil.TimerGranularity;

import java.io.PrintStream;
import java.util.Locale;

/**
 * testam's output, in GASNet's words and widths (tools/gasnet/compare.py reads both): the header, the settings, a
 * result line per measurement, the blank lines and " max:" marks between sizes, and rank 0's progress on stderr.
 * The current pass says where results go (the output, or /dev/null in a warm-up) and how many iterations they
 * average over.
 */
final class Report {
    private final TestAmOptions options;
    private final PrintStream out;
    private final int rank;
    private final int size;
    private final boolean sender;
    /** Rank 0's progress line on stderr during the timed pass (the warm-up shows none). */
    private Progress progress = Progress.none();
    private Sections sections;
    private PrintStream print;
    private int iters;

    Report(TestAmOptions options, PrintStream out, Client client, boolean sender) {
        this.options = options;
        this.out = out;
        this.rank = client.rank();
        this.size = client.size();
        this.sender = sender;
    }

    /** Results from now on go to {@code printTo} and average over {@code passIters}. */
    void pass(PrintStream printTo, int passIters) {
        print = printTo;
        iters = passIters;
    }

    /** Section letters start again at A, as each (repeated) section A begins. */
    Sections newSections() {
        sections = new Sections(options);
        return sections;
    }

    /** testam's output (the results' stream outside a warm-up). */
    PrintStream out() {
        return out;
    }

    void progress(Progress p) {
        progress = p;
    }

    Progress progress() {
        return progress;
    }

    /** Rank 0's first lines: the timer's granularity and the conduit's AM limits, as GASNet's testam prints them. */
    void printConduit(Client client, Am am) {
        out.println(TimerGranularity.line());
        out.printf(Locale.ROOT, "%s conduit: v%s GASNET_ALIGNED_SEGMENTS=0%n"
                + " gex_AM_MaxArgs():             %d%n"
                + " gex_AM_LUBRequestMedium(): %d%n"
                + " gex_AM_LUBReplyMedium():   %d%n"
                + " gex_AM_LUBRequestLong():   %d%n"
                + " gex_AM_LUBReplyLong():     %d%n",
            client.capabilities().conduit(), version(), am.maxArgs(), am.lubRequestMedium(), am.lubReplyMedium(),
            am.lubRequestLong(), am.lubReplyLong());
    }

    /** GASNet's header: the iterations and each setting, in GASNet's words, then the column titles. */
    void printSettings() {
        final boolean in = options.inSegment();
        final boolean async = options.asyncRequests();
        out.printf(Locale.ROOT, "Running %d iterations of %s AM performance with:%n", options.iters(),
            options.crossMachine() ? "cross-machine " : "");
        out.printf("  local addresses %sside the segment%s%n", in ? "in" : "out", in ? " (default)" : "");
        out.printf("  %ssynchronous LC for Requests%s%n", async ? "a" : "", async ? "" : " (default)");
        out.printf("  %s%n", switch (options.payload()) {
            case FIXED -> "fixed-Payload (default)";
            case NEGOTIATED_CLIENT_BUFFER -> "negotiated-Payload with client-provided buffer";
            case NEGOTIATED_GASNET_BUFFER -> "negotiated-Payload with GASNet-provided buffer";
        });
        out.printf("  %s%n", switch (options.source()) {
            case NOOP -> "no payload initialization (default)";
            case GENERATE -> "payload initialized by computation";
            case MEMCPY -> "payload initialized using memcpy()";
        });
        out.printf(Locale.ROOT, "  %d extra recvr polling threads%n", options.pollers());
        out.println("  ...");
        out.println("   Msg Sz  Description                             Total time   Avg. time   Bandwidth");
        out.println("   ------  -----------                             ----------   ---------   ---------");
        out.flush();
    }

    /** Every rank's last line, in one write: every rank shares the launcher's stdout. */
    void printDone() {
        out.print("node " + rank + "/" + size + " done.\n");
        out.flush();
    }

    void report(String description, long nanos, long sz, boolean roundTrip) {
        if (!sender) {
            return;
        }
        print.println(resultLine(sections.name(), rank, size, description, nanos / 1000.0, iters, sz, roundTrip));
        print.flush();
        if (progress.due()) {
            progress.update("testam " + sections.name() + ": " + description.strip().replaceAll(" +", " "),
                sizeFraction(sz, options.maxSize()));
        }
    }

    /** How far a section's sizes (0, 1, 2, 4... max) have come at {@code sz}. */
    static double sizeFraction(long sz, long max) {
        return sz <= 0 ? 0 : (double) (64 - Long.numberOfLeadingZeros(sz)) / (64 - Long.numberOfLeadingZeros(max));
    }

    /**
     * GASNet's report(): section, the sender's rank when there are more than 2 ranks, the description padded to 46,
     * total seconds, microseconds per iteration and, with a payload, MB/s (both directions for a round trip).
     */
    static String resultLine(char section, int rank, int ranks, String description, double micros, int iters,
                             long sz, boolean roundTrip) {
        final String node = ranks > 2 ? rank + ": " : "";
        final String line = String.format(Locale.ROOT, "%c: %s%-46s: %6.3f sec %8.3f us", section, node, description,
            micros / 1e6, micros / iters);
        if (sz == 0) {
            return line;
        }
        return line + String.format(Locale.ROOT, "  %7.3f MB/s",
            ((double) sz * (roundTrip ? 2 : 1) * iters / (1024 * 1024)) / (micros / 1e6));
    }

    /** GASNet's description of a Medium or Long measurement: the size, the category, the test. */
    static String description(long sz, String category, String test) {
        return String.format(Locale.ROOT, "%7d %s %s", sz, category, test);
    }

    void blankLine() {
        if (rank == 0) {
            print.println();
            print.flush();
        }
    }

    /**
     * GASNet's ADVANCESZ: 0, 1, then steps of the size itself (doubling) but at most -max-step, and a final step to
     * a maximum that is not on that sequence, announced by " max:".
     */
    long advance(long sz, long max) {
        if (sz == 0) {
            return 1;
        }
        final long next = sz + options.step(sz);
        if (sz < max && next > max) {
            if (rank == 0) {
                print.println(" max:");
            }
            return max;
        }
        return next;
    }

    private static String version() {
        final String v = TestAm.class.getPackage().getImplementationVersion();
        return v == null ? "0.1" : v;
    }
}
