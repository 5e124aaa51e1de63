package org.gexj.testam;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Gex;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Args;
import org.gexj.am.Payload;
import org.gexj.am.SrcDesc;
import org.gexj.am.Token;
import org.gexj.benchutil.JitQuiescence;
import org.gexj.benchutil.Progress;
import org.gexj.benchutil.TimerGranularity;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * GASNet's testam: AM Short/Medium/Long ping-pong and flood performance, with GASNet's command line, sections
 * (A = AMShort; B-F = AMMedium; G-K = AMLong) and output lines, so numbers compare with C GASNet.
 *
 * <p>Pairing as in GASNet: rank i talks to i^1 (or i+n/2 with -c); even ranks send; an odd rank count leaves the
 * last rank talking to itself. The timed loops allocate nothing: handlers are registered once and payloads live in
 * preallocated memory. GEX/J polls from any thread, so testam behaves as GASNet's PAR build ({@code -p N}).
 *
 * <p>{@code flag} is a plain field although {@code -p} pollers run handlers on other threads: handlers run only
 * under the client's poll lock, and every wait loop polls, so each read of {@code flag} follows an acquire of that
 * lock's state.
 */
public final class TestAm {
    static final int PING_SHORT = 201;
    static final int PONG_SHORT = 202;
    static final int PING_MEDIUM = 203;
    static final int PONG_MEDIUM = 204;
    static final int PING_LONG = 205;
    static final int PONG_LONG = 206;
    static final int PING_SHORT_FLOOD = 207;
    static final int PONG_SHORT_FLOOD = 208;
    static final int PING_MEDIUM_FLOOD = 209;
    static final int PONG_MEDIUM_FLOOD = 210;
    static final int PING_LONG_FLOOD = 211;
    static final int PONG_LONG_FLOOD = 212;
    static final int DONE = 213;
    private static final long PAGE = Client.PAGE_SIZE;
    /** GASNet's cap on the warm-up iterations at the start of each category. */
    private static final int MAX_WARMUP_ITERS = 10_000;
    /** Times the warm-up runs the code between two measurements; the JIT's last tier wants a few thousand calls. */
    private static final int SECTION_CODE_WARMUP = 10_000;
    /**
     * Barriers after a rank's first park: the deoptimised barrier climbs the JIT's tiers again, which 10 000 calls
     * did not always finish, leaving its last compilation for the timed pass.
     */
    private static final int RECOMPILE_BARRIERS = 30_000;
    /** About 5 ms of barriers when the ranks run on separate cores, longer while they share one. */
    private static final int SETTLE_BARRIERS = 2000;
    /** Longer than a barrier spins and yields before it parks: 20 000 yields, 1-5 us each here. */
    private static final long PARKING_WAIT_MS = 200;
    /** Long replies land at the start of the requester's segment. */
    private static final long REPLY_DEST = 0;

    private final Client client;
    private final Am am;
    private final TestAmOptions options;
    /** Rank 0's progress line on stderr during the timed pass (the warm-up shows none). */
    private Progress progress = Progress.none();
    private final PrintStream out;
    private Sections sections;
    private final int rank;
    private final int size;
    private final int peer;
    private final boolean sender;
    private final boolean recvr;
    private final Lc requestLc;
    /** Where Long requests land in the peer's segment; apart from the replies' destination when talking to oneself. */
    private final long requestDest;
    private final SourceFiller filler;
    private final Pollers pollers;
    private MemorySegment segment;
    /** The part of this rank's segment where Long requests land, whose bytes a Long ping handler replies with. */
    private MemorySegment requestLanding;
    private MemorySegment source;
    /** A Medium ping handler's own buffer, for the cases where GASNet's handler would write to the received one. */
    private MemorySegment echo;
    private int flag;
    /** The current pass: a warm-up pass prints to /dev/null and uses its own iterations and sizes. */
    private int iters;
    private int warmupIters;
    private PrintStream print;

    private TestAm(Client client, TestAmOptions options, PrintStream out) {
        this.client = client;
        this.am = Am.of(client);
        this.options = options;
        this.out = out;
        this.rank = client.rank();
        this.size = client.size();
        if (options.crossMachine()) {
            if (size % 2 == 1 && rank == size - 1) {
                sender = true;
                peer = rank;
            } else {
                final int half = size / 2;
                sender = rank < half;
                peer = sender ? rank + half : rank - half;
            }
        } else {
            final int p = rank ^ 1;
            sender = rank % 2 == 0;
            peer = p == size ? rank : p;
        }
        this.recvr = !sender || peer == rank;
        this.requestLc = options.asyncRequests() ? Lc.GROUP : Lc.NOW;
        this.requestDest = peer == rank ? align(options.maxSize(), Long.BYTES) : 0;
        this.filler = new SourceFiller(options.source(), options.maxSize());
        this.pollers = new Pollers(client, recvr ? options.pollers() : 0);
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
        register();
        // a rank talking to itself needs room for its requests and its replies (GASNet's TEST_SEGSZ_EXPR)
        final long copies = size % 2 == 1 ? 2 : 1;
        segment = client.attachSegment(Math.max(PAGE, align(copies * align(options.maxSize(), Long.BYTES), PAGE)))
            .memory();
        requestLanding = segment.asSlice(requestDest); // the pairing is symmetric: the peer's requests land here
        source = options.inSegment() ? segment : Arena.ofShared().allocate(align(options.maxSize(), PAGE), PAGE);
        echo = Arena.ofShared().allocate(Math.max(1, Math.min(options.maxSize(), am.maxReplyMedium(-1, 0))), 8);
        if (rank == 0) {
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
        client.barrier();
        pollers.start();
        try {
            if (rank == 0) {
                printSettings(); // before the warm-up, which then also absorbs the compilations its first printf causes
            }
            if (options.warmupFor(client.capabilities().crossMapped()) > 0) {
                warmUp();
            }
            progress = Progress.forRank(rank);
            pass(options.iters(), options.maxSize(), out, 1);
            progress.done();
            if (recvr) {
                am.requestShort(rank, DONE); // as GASNet: the receiver ends its pollers with a message to itself
            }
            pollers.join();
        } finally {
            pollers.finish();
        }
        client.barrier();
        out.print("node " + rank + "/" + size + " done.\n"); // one write: every rank shares the launcher's stdout
        out.flush();
    }

    /** GASNet's header: the iterations and each setting, in GASNet's words, then the column titles. */
    private void printSettings() {
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

    /**
     * Gets everything the timed pass runs compiled in its final form first: on 2 cores, a compilation during a timed
     * pass takes a core from a rank, and a rank waiting in a barrier's yield loop hands its core to the compiler thread
     * for milliseconds. Each step covers what the one before left for the timed pass to compile.
     */
    private void warmUp() {
        // only the file is closed: closing the PrintStream flushes an empty buffer, a branch the compiled printing has
        // not seen, and deoptimises it for the timed pass
        try (FileOutputStream devNull = new FileOutputStream("/dev/null")) {
            final PrintStream sink = printStream(devNull);
            for (int round = 0; round < TestAmOptions.WARMUP_ROUNDS; round++) {
                pass(options.warmupFor(client.capabilities().crossMapped()),
                    Math.min(options.maxSize(), TestAmOptions.WARMUP_MAX_SIZE), sink,
                    TestAmOptions.WARMUP_SHORT_REPEATS);
            }
            warmSectionCode(sink);
            waitUntilParked();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        JitQuiescence.await();
        client.barrier();
        // ranks that slept or parked can wake up on one core and poll there in turns for milliseconds (10 ms seen)
        // until the scheduler moves one to the idle core: settle that with barriers, which yield, before timing
        for (int i = 0; i < SETTLE_BARRIERS; i++) {
            client.barrier();
        }
    }

    /**
     * Each rank waits once in a barrier until its back-off parks, then {@link #RECOMPILE_BARRIERS} barriers recompile
     * it. The passes never park, so a rank's first park deoptimises its compiled barrier; that happened in the long
     * barrier after {@link JitQuiescence}, and the barrier was recompiled during the first timed section.
     */
    private void waitUntilParked() {
        for (int parity = 0; parity < 2; parity++) {
            if (rank % 2 != parity) {
                try {
                    Thread.sleep(PARKING_WAIT_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            client.barrier();
        }
        for (int i = 0; i < RECOMPILE_BARRIERS; i++) {
            client.barrier();
        }
    }

    /**
     * The code between measurements (a barrier, a description, a report, a blank line) runs only a few dozen times per
     * pass, so the JIT compiled it in the timed pass. The numbers vary as real ones do: a digit pattern the profile has
     * not seen deoptimises the formatting.
     */
    private void warmSectionCode(PrintStream sink) {
        print = sink;
        for (int i = 0; i < SECTION_CODE_WARMUP; i++) {
            final long sz = (i & 1) == 0 ? 0 : 1L << (i % 22); // section A's lines have none; up to 2 MiB
            final long magnitude = 10_000L << (i % 24); // totals from 10 us to minutes, digits scattered
            client.barrier();
            report(description(sz, "AMLong     ", "flood     roundtrip ReqRep"),
                magnitude + i * 2_654_435_761L % magnitude, sz, (i & 2) == 0);
            blankLine();
        }
    }

    /**
     * @param printTo      the output, or in a warm-up pass a stream to /dev/null built as the output is
     * @param shortRepeats times section A runs: a warm-up pass repeats it, because its loops run once per pass where a
     *                     Medium or Long loop runs once per size, too few for the JIT to compile them fully
     */
    private void pass(int passIters, long maxSize, PrintStream printTo, int shortRepeats) {
        iters = passIters;
        warmupIters = Math.min(passIters, MAX_WARMUP_ITERS);
        print = printTo;
        for (int r = 0; r < shortRepeats; r++) {
            sections = new Sections(options);
            shortTests();
        }
        payloadTests(Category.MEDIUM, Math.min(maxSize, am.maxRequestMedium(peer, 0)),
            Math.min(maxSize, am.maxReplyMedium(peer, 0)));
        payloadTests(Category.LONG, Math.min(maxSize, am.maxRequestLong(peer, 0)),
            Math.min(maxSize, am.maxReplyLong(peer, 0)));
    }

    /**
     * testam's output, and the warm-up's over /dev/null: the same path down to the write system call, so the warm-up
     * compiles and profiles what the timed pass prints through (a warm-up that did not print left that to be compiled,
     * and the report deoptimised, in the timed pass). Not System.out, whose FileOutputStream is a private subclass.
     */
    private static PrintStream printStream(FileOutputStream file) {
        return new PrintStream(new BufferedOutputStream(file), false, System.out.charset());
    }

    private static String version() {
        final String v = TestAm.class.getPackage().getImplementationVersion();
        return v == null ? "0.1" : v;
    }

    private static long align(long v, long a) {
        return (v + a - 1) / a * a;
    }

    // ------------------------------------------------------------------------------------------------ handlers

    private void register() {
        am.register(PING_SHORT, AmHandler.shortRequest(0, (t, a) -> t.replyShort(PONG_SHORT)));
        am.register(PONG_SHORT, AmHandler.ofShort(org.gexj.am.Direction.REQREP, 0, (t, a) -> flag++));
        am.register(PING_MEDIUM, AmHandler.mediumRequest(0, this::pingMedium));
        am.register(PONG_MEDIUM, AmHandler.ofMedium(org.gexj.am.Direction.REQREP, 0, (t, p, a) -> flag++));
        am.register(PING_LONG, AmHandler.longRequest(0, this::pingLong));
        am.register(PONG_LONG, AmHandler.ofLong(org.gexj.am.Direction.REQREP, 0, (t, p, a) -> flag++));
        am.register(PING_SHORT_FLOOD, AmHandler.shortRequest(0, (t, a) -> t.replyShort(PONG_SHORT_FLOOD)));
        am.register(PONG_SHORT_FLOOD, AmHandler.ofShort(org.gexj.am.Direction.REQREP, 0, (t, a) -> flag++));
        am.register(PING_MEDIUM_FLOOD, AmHandler.mediumRequest(0, this::pingMediumFlood));
        am.register(PONG_MEDIUM_FLOOD, AmHandler.ofMedium(org.gexj.am.Direction.REQREP, 0, (t, p, a) -> flag++));
        am.register(PING_LONG_FLOOD, AmHandler.longRequest(0, this::pingLongFlood));
        am.register(PONG_LONG_FLOOD, AmHandler.ofLong(org.gexj.am.Direction.REQREP, 0, (t, p, a) -> flag++));
        am.register(DONE, AmHandler.shortRequest(0, (t, a) -> pollers.finish()));
    }

    private void pingMedium(Token t, Payload p, Args a) {
        replyMedium(t, p, PONG_MEDIUM);
    }

    private void pingMediumFlood(Token t, Payload p, Args a) {
        replyMedium(t, p, PONG_MEDIUM_FLOOD);
    }

    /** Replies with the received payload as GASNet's handler does with its buffer, as fixed or negotiated payload. */
    private void replyMedium(Token t, Payload p, int pong) {
        final long n = p.length();
        switch (options.payload()) {
            case FIXED -> {
                if (options.source() == TestAmOptions.SourceMode.NOOP) {
                    t.replyMedium(pong, p, 0, n, Lc.NOW);
                } else {
                    // GASNet's handler fills the buffer it received; a delivered payload is read-only, so fill ours
                    filler.fill(echo, 0, n);
                    t.replyMedium(pong, echo, 0, n, Lc.NOW);
                }
            }
            case NEGOTIATED_GASNET_BUFFER -> commit(t.prepareReplyMedium(null, n, n, null, 0, 0), pong, n);
            // GASNet offers the received buffer as the client buffer; a delivered payload is no segment, so offer ours
            case NEGOTIATED_CLIENT_BUFFER -> commit(t.prepareReplyMedium(echo, n, n, Lc.NOW, 0, 0), pong, n);
        }
    }

    private void pingLong(Token t, Payload p, Args a) {
        replyLong(t, p, PONG_LONG);
    }

    private void pingLongFlood(Token t, Payload p, Args a) {
        replyLong(t, p, PONG_LONG_FLOOD);
    }

    /** Replies with the bytes the request put in this segment, as fixed or negotiated payload. */
    private void replyLong(Token t, Payload p, int pong) {
        final long n = p.length();
        switch (options.payload()) {
            case FIXED -> {
                filler.fill(segment, p.segmentOffset(), n);
                t.replyLong(pong, segment, p.segmentOffset(), n, REPLY_DEST, Lc.NOW);
            }
            case NEGOTIATED_GASNET_BUFFER -> commit(t.prepareReplyLong(null, n, n, REPLY_DEST, null, 0, 0), pong, n);
            case NEGOTIATED_CLIENT_BUFFER ->
                commit(t.prepareReplyLong(requestLanding, n, n, REPLY_DEST, Lc.NOW, 0, 0), pong, n);
        }
    }

    /** Fills a negotiated payload's buffer as the -src mode says, and sends it. */
    private void commit(SrcDesc sd, int handler, long nbytes) {
        filler.fill(sd.buffer(), (int) nbytes);
        sd.commit(handler, nbytes);
    }

    private void blockUntil(int value) {
        while (flag != value) {
            client.poll();
        }
    }

    // ------------------------------------------------------------------------------------------------ reporting

    private void report(String description, long nanos, long sz, boolean roundTrip) {
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

    private void blankLine() {
        if (rank == 0) {
            print.println();
            print.flush();
        }
    }

    /**
     * GASNet's ADVANCESZ: 0, 1, then steps of the size itself (doubling) but at most -max-step, and a final step to
     * a maximum that is not on that sequence, announced by " max:".
     */
    private long advance(long sz, long max) {
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

    // ------------------------------------------------------------------------------------------------ AMShort

    private void shortTests() {
        if (sections.begin() && sender && !options.skipWarmup()) {
            flag = 0;
            shortFlood(PING_SHORT_FLOOD, warmupIters);
            blockUntil(warmupIters);
            am.requestShort(peer, PING_SHORT);
            blockUntil(warmupIters + 1);
        }
        client.barrier();
        if (sections.enabled() && sender) {
            final long start = System.nanoTime();
            shortPingPong();
            report("        AMShort     ping-pong roundtrip ReqRep", System.nanoTime() - start, 0, true);
        }
        client.barrier();
        if (sections.enabled()) {
            final long start = System.nanoTime();
            flag = -1;
            client.barrier();
            shortReqReq();
            report("        AMShort     ping-pong roundtrip ReqReq", System.nanoTime() - start, 0, true);
            blankLine();
        }
        client.barrier();
        if (sections.enabled()) {
            if (sender) {
                final long start = System.nanoTime();
                flag = 0;
                client.barrier();
                shortFlood(PONG_SHORT_FLOOD, iters);
                if (recvr) {
                    blockUntil(iters);
                }
                client.barrier();
                report("        AMShort     flood     one-way   Req", System.nanoTime() - start, 0, false);
            } else {
                flag = 0;
                client.barrier();
                blockUntil(iters);
                client.barrier();
            }
            blankLine();
        }
        client.barrier();
        if (sections.enabled() && sender) {
            final long start = System.nanoTime();
            flag = 0;
            shortFlood(PING_SHORT_FLOOD, iters);
            blockUntil(iters);
            report("        AMShort     flood     roundtrip ReqRep", System.nanoTime() - start, 0, true);
            blankLine();
        }
        client.barrier();
    }

    // ------------------------------------------------------------------------------------------------ Medium, Long

    private enum Category { MEDIUM, LONG }

    private void request(Category category, int handler, long sz) {
        final boolean medium = category == Category.MEDIUM;
        switch (options.payload()) {
            case FIXED -> {
                filler.fill(source, 0, sz);
                if (medium) {
                    am.requestMedium(peer, handler, source, 0, sz, requestLc);
                } else {
                    am.requestLong(peer, handler, source, 0, sz, requestDest, requestLc);
                }
            }
            case NEGOTIATED_GASNET_BUFFER -> commit(medium ? am.prepareRequestMedium(peer, null, sz, sz, null, 0, 0)
                : am.prepareRequestLong(peer, null, sz, sz, requestDest, null, 0, 0), handler, sz);
            case NEGOTIATED_CLIENT_BUFFER -> commit(medium ? am.prepareRequestMedium(peer, source, sz, sz, requestLc, 0, 0)
                : am.prepareRequestLong(peer, source, sz, sz, requestDest, requestLc, 0, 0), handler, sz);
        }
    }

    private void completeRequests() {
        if (options.asyncRequests()) {
            am.nbiWait(Ec.AM);
        }
    }

    /** GASNet's description of a Medium or Long measurement: the size, the category, the test. */
    private static String description(long sz, String category, String test) {
        return String.format(Locale.ROOT, "%7d %s %s", sz, category, test);
    }

    /** GASNet's TESTAM_PERF: five sections for one category. */
    private void payloadTests(Category category, long maxReq, long maxRep) {
        final long maxReqRep = Math.min(maxReq, maxRep);
        final int ping = category == Category.MEDIUM ? PING_MEDIUM : PING_LONG;
        final int pong = category == Category.MEDIUM ? PONG_MEDIUM : PONG_LONG;
        final int pingFlood = category == Category.MEDIUM ? PING_MEDIUM_FLOOD : PING_LONG_FLOOD;
        final int pongFlood = category == Category.MEDIUM ? PONG_MEDIUM_FLOOD : PONG_LONG_FLOOD;
        final String desc = category == Category.MEDIUM ? "AMMedium   " : "AMLong     ";
        if (sender && !options.skipWarmup() && sections.anyOfNext(5)) {
            flag = 0;
            request(category, ping, maxReqRep);
            blockUntil(1);
            completeRequests();
            flood(category, pingFlood, maxReqRep, warmupIters);
            blockUntil(warmupIters + 1);
            completeRequests();
        }
        client.barrier();
        if (sections.begin()) {
            for (long sz = 0; sz <= maxReqRep; ) {
                final String msg = description(sz, desc, "ping-pong roundtrip ReqRep");
                client.barrier();
                if (sender) {
                    final long start = System.nanoTime();
                    pingPong(category, ping, sz);
                    completeRequests();
                    report(msg, System.nanoTime() - start, sz, true);
                }
                client.barrier();
                sz = advance(sz, maxReqRep);
            }
            blankLine();
        }
        client.barrier();
        if (sections.begin()) {
            for (long sz = 0; sz <= maxReq; ) {
                final String msg = description(sz, desc, "ping-pong roundtrip ReqReq");
                client.barrier();
                final long start = System.nanoTime();
                flag = -1;
                client.barrier();
                reqReq(category, pong, sz);
                completeRequests();
                report(msg, System.nanoTime() - start, sz, true);
                client.barrier();
                sz = advance(sz, maxReq);
            }
            blankLine();
        }
        client.barrier();
        if (sections.begin()) {
            for (long sz = 0; sz <= maxReq; ) {
                flag = 0;
                final String msg = description(sz, desc, "flood     one-way   Req");
                client.barrier();
                if (sender) {
                    final long start = System.nanoTime();
                    flood(category, pongFlood, sz, iters);
                    completeRequests();
                    if (recvr) {
                        blockUntil(iters);
                    }
                    client.barrier();
                    report(msg, System.nanoTime() - start, sz, false);
                } else {
                    blockUntil(iters);
                    client.barrier();
                }
                client.barrier();
                sz = advance(sz, maxReq);
            }
            blankLine();
        }
        client.barrier();
        if (sections.begin()) {
            for (long sz = 0; sz <= maxReqRep; ) {
                final String msg = description(sz, desc, "flood     roundtrip ReqRep");
                client.barrier();
                if (sender) {
                    final long start = System.nanoTime();
                    flag = 0;
                    flood(category, pingFlood, sz, iters);
                    blockUntil(iters);
                    completeRequests();
                    report(msg, System.nanoTime() - start, sz, true);
                }
                client.barrier();
                sz = advance(sz, maxReqRep);
            }
            blankLine();
        }
        client.barrier();
        if (sections.begin()) {
            for (long sz = 0; sz <= maxReq; ) {
                final String msg = description(sz, desc, "flood     two-way   Req");
                flag = 0;
                client.barrier();
                final long start = System.nanoTime();
                flood(category, pongFlood, sz, iters);
                blockUntil(iters);
                completeRequests();
                report(msg, System.nanoTime() - start, sz, false);
                client.barrier();
                sz = advance(sz, maxReq);
            }
            blankLine();
        }
        client.barrier();
    }

    // ------------------------------------------------------------------------------------------------ timed loops
    // Each loop is a small method of its own, shared by the warm-up and the timed pass (GASNet's warm-up floods
    // included), so the JIT compiles it once during the warm-up instead of on-stack-replacing a large section method
    // in the middle of a measurement.

    private void shortPingPong() {
        flag = -1;
        for (int i = 0; i < iters; i++) {
            am.requestShort(peer, PING_SHORT);
            blockUntil(i);
        }
    }

    private void shortReqReq() {
        if (sender && recvr) {
            for (int i = 0; i < iters; i++) {
                am.requestShort(peer, PONG_SHORT);
                blockUntil(2 * i);
                am.requestShort(peer, PONG_SHORT);
                blockUntil(2 * i + 1);
            }
        } else if (sender) {
            for (int i = 0; i < iters; i++) {
                am.requestShort(peer, PONG_SHORT);
                blockUntil(i);
            }
        } else if (recvr) {
            for (int i = 0; i < iters; i++) {
                blockUntil(i);
                am.requestShort(peer, PONG_SHORT);
            }
        }
    }

    private void shortFlood(int handler, int n) {
        for (int i = 0; i < n; i++) {
            am.requestShort(peer, handler);
        }
    }

    private void pingPong(Category category, int handler, long sz) {
        flag = -1;
        for (int i = 0; i < iters; i++) {
            request(category, handler, sz);
            blockUntil(i);
        }
    }

    private void reqReq(Category category, int handler, long sz) {
        if (sender && recvr) {
            for (int i = 0; i < iters; i++) {
                request(category, handler, sz);
                blockUntil(2 * i);
                request(category, handler, sz);
                blockUntil(2 * i + 1);
            }
        } else if (sender) {
            for (int i = 0; i < iters; i++) {
                request(category, handler, sz);
                blockUntil(i);
            }
        } else if (recvr) {
            for (int i = 0; i < iters; i++) {
                blockUntil(i);
                request(category, handler, sz);
            }
        }
    }

    private void flood(Category category, int handler, long sz, int n) {
        for (int i = 0; i < n; i++) {
            request(category, handler, sz);
        }
    }
}
