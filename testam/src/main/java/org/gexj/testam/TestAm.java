package org.gexj.testam;

import org.gexj.Client;
import org.gexj.Gex;
import org.gexj.am.Am;
import org.gexj.benchutil.Progress;
import org.gexj.benchutil.WarmupFinish;
import org.gexj.benchutil.WarmupIters;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * GASNet's testam: AM Short/Medium/Long ping-pong and flood performance, with GASNet's command line, sections
 * (A = AMShort; B-F = AMMedium; G-K = AMLong) and output lines, so numbers compare with C GASNet.
 *
 * <p>This class sets a rank up (segment, payload memory, handlers, pollers) and runs the passes: the warm-up, which
 * gets everything compiled over /dev/null, and the timed pass. The parts: {@link Exchange} (the pairing and the timed
 * loops), {@link Handlers}, {@link ShortSection} and {@link PayloadSections} (the sections), {@link Report} (the
 * output). The timed loops allocate nothing: handlers are registered once and payloads live in preallocated memory.
 * GEX/J polls from any thread, so testam behaves as GASNet's PAR build ({@code -p N}).
 */
public final class TestAm {
    private static final long PAGE = Client.PAGE_SIZE;
    /** Iterations per size in a priming pass ({@link WarmupIters#PRIMING_PASSES}; fewer if the warm-up's are). */
    private static final int PRIMING_ITERS = 16;

    private final Client client;
    private final Am am;
    private final TestAmOptions options;
    private final int rank;
    private final Exchange exchange;
    private final Report report;
    private final Pollers pollers;

    private TestAm(Client client, TestAmOptions options, PrintStream out) {
        this.client = client;
        this.am = Am.of(client);
        this.options = options;
        this.rank = client.rank();
        final int size = client.size();
        // a rank talking to itself needs room for its requests and its replies (GASNet's TEST_SEGSZ_EXPR)
        final long copies = size % 2 == 1 ? 2 : 1;
        final MemorySegment segment = client.attachSegment(
            Math.max(PAGE, align(copies * align(options.maxSize(), Long.BYTES), PAGE))).memory();
        final MemorySegment source = options.inSegment() ? segment
            : Arena.ofShared().allocate(align(options.maxSize(), PAGE), PAGE);
        if (options.registeredSource()) {
            client.register(source); // closed with the client
        }
        final MemorySegment echo = Arena.ofShared()
            .allocate(Math.max(1, Math.min(options.maxSize(), am.maxReplyMedium(-1, 0))), 8);
        final SourceFiller filler = new SourceFiller(options.source(), options.maxSize());
        this.exchange = new Exchange(client, am, options, filler, source);
        this.report = new Report(options, out, client, exchange.sender);
        this.pollers = new Pollers(client, exchange.recvr ? options.pollers() : 0);
        // the pairing is symmetric: the peer's Long requests land where this rank's land in the peer
        new Handlers(options, filler, segment, segment.asSlice(exchange.requestDest), echo)
            .register(am, exchange, pollers);
    }

    public static void main(String[] args) {
        final PrintStream out = printStream(new FileOutputStream(FileDescriptor.out));
        int code;
        try (Client client = Gex.init("TESTAM")) {
            code = run(client, args, out);
        } finally {
            out.flush();
        }
        System.exit(code);
    }

    /** Runs testam on this rank (collective). @return the exit code: 0, or 1 for a usage error */
    public static int run(Client client, String[] args, PrintStream out) {
        final TestAmOptions options;
        try {
            options = TestAmOptions.parse(args);
        } catch (IllegalArgumentException e) {
            if (client.rank() == 0) {
                out.println("testam: " + e.getMessage());
                out.println(TestAmOptions.USAGE);
            }
            return 1;
        }
        new TestAm(client, options, out).run();
        return 0;
    }

    private void run() {
        if (rank == 0) {
            report.printConduit(client, am);
        }
        client.barrier();
        pollers.start();
        try {
            if (rank == 0) {
                // before the warm-up, which then also absorbs the compilations its first printf causes
                report.printSettings();
            }
            if (options.warmupFor(client.capabilities().crossMapped()) > 0) {
                warmUp();
            }
            report.progress(Progress.forRank(rank));
            pass(options.iters(), options.maxSize(), report.out(), 1);
            report.progress().done();
            if (exchange.recvr) {
                // as GASNet: the receiver ends its pollers with a message to itself
                am.requestShort(rank, Handlers.DONE);
            }
            pollers.join();
        } finally {
            pollers.finish();
        }
        client.barrier();
        report.printDone();
    }

    /**
     * Gets everything the timed pass runs compiled in its final form first: on 2 cores, a compilation during a timed
     * pass takes a core from a rank, and a rank waiting in a barrier's yield loop hands its core to the compiler thread
     * for milliseconds. Each step covers what the one before left for the timed pass to compile.
     */
    private void warmUp() {
        // only the file is closed: closing the PrintStream flushes an empty buffer, a branch the compiled printing has
        // not seen, and deoptimises it for the timed pass
        final int warmupIters = options.warmupFor(client.capabilities().crossMapped());
        final WarmupFinish finish = WarmupFinish.scaled(warmupIters, WarmupIters.NETWORK);
        try (FileOutputStream devNull = new FileOutputStream("/dev/null")) {
            final PrintStream sink = printStream(devNull);
            final long warmupMaxSize = Math.min(options.maxSize(), TestAmOptions.WARMUP_MAX_SIZE);
            final int primingIters = Math.min(PRIMING_ITERS, warmupIters);
            for (int k = 0; k < WarmupIters.PRIMING_PASSES; k++) {
                pass(primingIters, warmupMaxSize, sink, 1);
            }
            for (int round = 0; round < TestAmOptions.WARMUP_ROUNDS; round++) {
                pass(warmupIters, warmupMaxSize, sink, TestAmOptions.WARMUP_SHORT_REPEATS);
            }
            warmSectionCode(sink, finish);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        finish.finish(rank, client::barrier);
    }

    /**
     * The code between measurements (a barrier, a description, a report, a blank line) runs only a few dozen times per
     * pass, so the JIT compiled it in the timed pass. The numbers vary as real ones do: a digit pattern the profile has
     * not seen deoptimises the formatting.
     */
    private void warmSectionCode(PrintStream sink, WarmupFinish finish) {
        report.pass(sink, exchange.iters);
        finish.betweenRows(i -> {
            final long sz = (i & 1) == 0 ? 0 : 1L << (i % 22); // section A's lines have none; up to 2 MiB
            final long magnitude = 10_000L << (i % 24); // totals from 10 us to minutes, digits scattered
            client.barrier();
            report.report(Report.description(sz, "AMLong     ", "flood     roundtrip ReqRep"),
                magnitude + i * 2_654_435_761L % magnitude, sz, (i & 2) == 0);
            report.blankLine();
        });
    }

    /**
     * @param printTo      the output, or in a warm-up pass a stream to /dev/null built as the output is
     * @param shortRepeats times section A runs: a warm-up pass repeats it, because its loops run once per pass where a
     *                     Medium or Long loop runs once per size, too few for the JIT to compile them fully
     */
    private void pass(int passIters, long maxSize, PrintStream printTo, int shortRepeats) {
        exchange.iterations(passIters);
        report.pass(printTo, passIters);
        Sections sections = null;
        for (int r = 0; r < shortRepeats; r++) {
            sections = report.newSections();
            ShortSection.run(client, options, exchange, report, sections);
        }
        final int peer = exchange.peer;
        PayloadSections.run(client, options, exchange, report, sections, Category.MEDIUM,
            Math.min(maxSize, am.maxRequestMedium(peer, 0)), Math.min(maxSize, am.maxReplyMedium(peer, 0)));
        PayloadSections.run(client, options, exchange, report, sections, Category.LONG,
            Math.min(maxSize, am.maxRequestLong(peer, 0)), Math.min(maxSize, am.maxReplyLong(peer, 0)));
    }

    /**
     * testam's output, and the warm-up's over /dev/null: the same path down to the write system call, so the warm-up
     * compiles and profiles what the timed pass prints through (a warm-up that did not print left that to be compiled,
     * and the report deoptimised, in the timed pass). Not System.out, whose FileOutputStream is a private subclass.
     */
    private static PrintStream printStream(FileOutputStream file) {
        return new PrintStream(new BufferedOutputStream(file), false, System.out.charset());
    }

    static long align(long v, long a) {
        return (v + a - 1) / a * a;
    }
}
