package org.gexj.testqueue;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.Gex;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.benchutil.Progress;
import org.gexj.benchutil.TimerGranularity;
import org.gexj.benchutil.WarmupFinish;
import org.gexj.rma.Rma;

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
 * GASNet's testqueue: the average injection time of {@code depth} back-to-back operations (puts, gets, AM Short,
 * Medium, Long) for queue depths 1, 2, 4 .. maxdepth and payloads 1, 2, 4 .. maxsz, with completion outside the
 * timed region. Same command line, titles, header row and rows as GASNet.
 */
public final class TestQueue {
    static final int PING_SHORT = 201;
    static final int PING_MEDIUM = 202;
    static final int PING_LONG = 203;
    private static final String DASHES = "--------------------";

    private final Client client;
    private final Am am;
    private final Rma rma;
    private final TestQueueOptions o;
    private final PrintStream out;
    private final int rank;
    private final int size;
    private int peer;
    private boolean sender;
    private boolean recver;
    private MemorySegment msgbuf;
    private long tgtmem;
    private final Event[] events;
    private final Lc[] lcs;
    private int amcount;
    private long regval;
    /** The current pass: warm-up passes are silent and use their own iterations and largest size. */
    /** Where the current pass prints: the output, or in a warm-up pass /dev/null through the same classes. */
    private PrintStream print;
    /** Rank 0's progress line on stderr during the timed pass, updated within cells too (one may take minutes). */
    private Progress progress = Progress.none();
    private String progressTitle = "";
    private int progressCell;
    private int progressCells;
    private int passIters;
    private int passMaxSize;

    private TestQueue(Client client, TestQueueOptions options, PrintStream out) {
        this.client = client;
        this.am = Am.of(client);
        this.rma = Rma.of(client);
        this.o = options;
        this.out = out;
        this.rank = client.rank();
        this.size = client.size();
        this.events = new Event[options.maxDepth()];
        this.lcs = new Lc[options.maxDepth()];
        for (int i = 0; i < lcs.length; i++) {
            lcs[i] = Lc.event();
        }
    }

    public static void main(String[] args) {
        int code;
        try (Client client = Gex.init("TESTQUEUE")) {
            code = run(client, args, printStream(new FileOutputStream(FileDescriptor.out)));
        }
        System.exit(code);
    }

    /** Runs testqueue on this rank (collective). @return the exit code: 0, or 1 for a usage error */
    public static int run(Client client, String[] args, PrintStream out) {
        final TestQueueOptions options;
        try {
            options = TestQueueOptions.parse(args);
        } catch (IllegalArgumentException e) {
            if (client.rank() == 0) {
                out.println("testqueue: " + e.getMessage());
                out.println(TestQueueOptions.USAGE);
            }
            return 1;
        }
        return new TestQueue(client, options, out).run();
    }

    private int run() {
        am.register(PING_SHORT, AmHandler.shortRequest(0, (t, a) -> amcount++));
        am.register(PING_MEDIUM, AmHandler.mediumRequest(0, (t, p, a) -> amcount++));
        am.register(PING_LONG, AmHandler.longRequest(0, (t, p, a) -> amcount++));
        final long half = align(o.maxSize(), Client.PAGE_SIZE);
        final MemorySegment segment = client.attachSegment(2 * half).memory();
        msg0(TimerGranularity.line());
        if (!o.firstLast() && size > 1 && size % 2 != 0) {
            msg0("WARNING: This test requires a unary or even number of nodes. Test skipped.\n");
            return 0;
        }
        if (o.firstLast()) {
            peer = size - 1;
            sender = rank == 0;
            recver = rank == size - 1;
        } else if (size == 1) {
            peer = 0;
            sender = true;
            recver = true;
        } else {
            peer = rank % 2 == 1 ? rank - 1 : rank + 1;
            sender = o.fullDuplex() || rank % 2 == 0;
            recver = o.fullDuplex() || !sender;
        }
        tgtmem = half;
        msgbuf = o.inSegment() ? segment : Arena.ofShared().allocate(half, Client.PAGE_SIZE);
        msg0(String.format(Locale.ROOT,
            "Running %squeue test with local addr %sside segment, iters=%d, maxdepth=%d, sz: %d...%d",
            o.firstLast() ? "first/last " : (o.fullDuplex() ? "full-duplex " : ""), o.inSegment() ? "in" : "out",
            o.iters(), o.maxDepth(), 1, o.maxSize()));
        msg0("x-axis: queue depth, y-axis: message size, injection time in microseconds\n");
        client.barrier();
        if (o.warmupIters() > 0) {
            // the warm-up prints too, to /dev/null, or the printing between cells is compiled in the timed pass and
            // its compiler thread takes a core from a rank during the next cell; only the file is closed, as closing
            // the stream would flush an empty buffer, a branch the compiled printing has not seen
            final WarmupFinish finish = WarmupFinish.scaled(o.warmupIters(), TestQueueOptions.DEFAULT_WARMUP_ITERS);
            try (FileOutputStream devNull = new FileOutputStream("/dev/null")) {
                final PrintStream sink = printStream(devNull);
                if (o.maxSize() > TestQueueOptions.WARMUP_MAX_SIZE) {
                    // larger payloads take other paths (an AM Long past the packed limit goes by RMA): without this
                    // the first timed cell of each compiled them, 3x GASNet's time at 8 KiB depth 1 on ofi. First:
                    // its floods fill the ring, a branch the send path's compiled code had as a trap, and when this
                    // pass came last the recompiled send path reached C2 only in the first timed cells, whose C2
                    // compile then took a core from a rank (smp -m -i 100 256: first cell 0.05-47 us, stalls of
                    // 2-4 ms, in 5 of 8 runs; 0.045-0.053 in 8 of 8 with this order)
                    pass(sink, Math.max(1, o.warmupIters() / 10),
                        Math.min(o.maxSize(), TestQueueOptions.WARMUP_LARGE_MAX_SIZE));
                }
                for (int round = 0; round < TestQueueOptions.WARMUP_ROUNDS; round++) {
                    pass(sink, o.warmupIters(), Math.min(o.maxSize(), TestQueueOptions.WARMUP_MAX_SIZE));
                }
                warmCellCode(sink, finish);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            finish.finish(rank, client::barrier);
        }
        progress = Progress.forRank(rank);
        pass(out, o.iters(), o.maxSize());
        progress.done();
        client.barrier();
        return 0;
    }

    /**
     * The code between two timed cells (a barrier, a cell's number, a row's line every few cells), which a pass runs
     * a few hundred times: with times from 1 ns to minutes, in each of the cell's precisions
     * ({@link WarmupFinish#betweenRows}).
     */
    private void warmCellCode(PrintStream sink, WarmupFinish finish) {
        final StringBuilder[] row = new StringBuilder[1];
        finish.betweenRows(i -> {
            client.barrier();
            if (sender) {
                if (i % 8 == 0) {
                    row[0] = new StringBuilder(String.format(Locale.ROOT, "%-8d", 1 << (i % 20)));
                }
                row[0].append(cell(0.001 * (1L << (i % 28)) * (1 + i * 2_654_435_761L % 1000 / 1000.0)));
                if (i % 8 == 7) {
                    sink.println(row[0]);
                    sink.flush();
                }
            }
        });
    }

    /** A buffered stream over {@code file}: the output and the warm-up's sink run the same classes. */
    private static PrintStream printStream(FileOutputStream file) {
        return new PrintStream(new BufferedOutputStream(file), false, System.out.charset());
    }

    private void pass(PrintStream printTo, int iters, int maxSize) {
        print = printTo;
        passIters = iters;
        passMaxSize = maxSize;
        rmaTests();
        amTests();
    }

    private static long align(long v, long a) {
        return (v + a - 1) / a * a;
    }

    private void msg0(String text) {
        msg0(out, text);
    }

    private void msg0(PrintStream to, String text) {
        if (rank == 0) {
            to.println(text);
            to.flush();
        }
    }

    private void waitEvents(int depth) {
        for (int i = 0; i < depth; i++) {
            events[i].await();
        }
    }

    private void waitLcEvents(int depth) {
        for (int i = 0; i < depth; i++) {
            lcs[i].lastEvent().await();
        }
    }

    private void waitNbi(int depth) {
        client.nbiWait(Ec.ALL);
    }

    private void nothing(int depth) {
    }

    /** GASNET_BLOCKUNTIL(amcount == depth): poll and check, the pause hint only between a failed check and a poll. */
    private void receiveAms(int depth) {
        while (amcount != depth) {
            client.poll();
            if (amcount == depth) {
                break;
            }
            Thread.onSpinWait();
        }
        amcount = 0;
    }

    private void rmaTests() {
        final String blocking = " (BLOCKING - represents round-trip latency)";
        if (o.puts() && o.bulk() && o.explicit()) {
            queueTest("gex_RMA_PutNB/bulk", (i, n) -> events[i] = rma.putNb(peer, tgtmem, msgbuf, 0, n, Lc.DEFER),
                this::waitEvents, this::nothing, 0);
        }
        if (o.puts() && o.bulk() && o.implicit()) {
            queueTest("gex_RMA_PutNBI/bulk", (i, n) -> rma.putNbi(peer, tgtmem, msgbuf, 0, n, Lc.DEFER),
                this::waitNbi, this::nothing, 0);
        }
        if (o.puts() && o.nonBulk() && o.explicit()) {
            queueTest("gex_RMA_PutNB", (i, n) -> events[i] = rma.putNb(peer, tgtmem, msgbuf, 0, n, Lc.NOW),
                this::waitEvents, this::nothing, 0);
        }
        if (o.gets() && o.explicit()) {
            queueTest("gex_RMA_GetNB", (i, n) -> events[i] = rma.getNb(msgbuf, 0, peer, tgtmem, n),
                this::waitEvents, this::nothing, 0);
        }
        if (o.puts() && o.nonBulk() && o.implicit()) {
            queueTest("gex_RMA_PutNBI", (i, n) -> rma.putNbi(peer, tgtmem, msgbuf, 0, n, Lc.NOW),
                this::waitNbi, this::nothing, 0);
        }
        if (o.gets() && o.implicit()) {
            queueTest("gex_RMA_GetNBI", (i, n) -> rma.getNbi(msgbuf, 0, peer, tgtmem, n),
                this::waitNbi, this::nothing, 0);
        }
        if (o.puts() && o.value() && o.explicit()) {
            queueTest("gex_RMA_PutNBVal", (i, n) -> events[i] = rma.putValNb(peer, tgtmem, regval, n),
                this::waitEvents, this::nothing, 8);
        }
        if (o.puts() && o.value() && o.implicit()) {
            queueTest("gex_RMA_PutNBIVal", (i, n) -> rma.putValNbi(peer, tgtmem, regval, n),
                this::waitNbi, this::nothing, 8);
        }
        if (o.puts() && o.blocking()) {
            queueTest("gex_RMA_PutBlocking" + blocking, (i, n) -> rma.put(peer, tgtmem, msgbuf, 0, n),
                this::nothing, this::nothing, 0);
        }
        if (o.gets() && o.blocking()) {
            queueTest("gex_RMA_GetBlocking" + blocking, (i, n) -> rma.get(msgbuf, 0, peer, tgtmem, n),
                this::nothing, this::nothing, 0);
        }
        if (o.puts() && o.value() && o.blocking()) {
            queueTest("gex_RMA_PutBlockingVal" + blocking, (i, n) -> rma.putVal(peer, tgtmem, regval, n),
                this::nothing, this::nothing, 8);
        }
        if (o.gets() && o.value() && o.blocking()) {
            queueTest("gex_RMA_GetBlockingVal" + blocking, (i, n) -> regval ^= rma.getVal(peer, tgtmem, n),
                this::nothing, this::nothing, 8);
        }
    }

    private void amTests() {
        final int maxMedium = (int) Math.min(Integer.MAX_VALUE, am.maxRequestMedium(-1, 0));
        final int maxLong = (int) Math.min(Integer.MAX_VALUE, am.maxRequestLong(-1, 0));
        if (o.amShort()) {
            amcount = 0;
            queueTest("gex_AM_RequestShort0", (i, n) -> am.requestShort(peer, PING_SHORT),
                this::nothing, this::receiveAms, 1);
        }
        if (o.amMedium() && o.blocking()) {
            amcount = 0;
            queueTest("gex_AM_RequestMedium0 (blocking for LC)",
                (i, n) -> am.requestMedium(peer, PING_MEDIUM, msgbuf, 0, n, Lc.NOW),
                this::nothing, this::receiveAms, maxMedium);
        }
        if (o.amMedium() && o.explicit()) {
            queueTest("gex_AM_RequestMedium0 (explicit handle for LC)",
                (i, n) -> am.requestMedium(peer, PING_MEDIUM, msgbuf, 0, n, lcs[i]),
                this::waitLcEvents, this::receiveAms, maxMedium);
        }
        if (o.amMedium() && o.implicit()) {
            queueTest("gex_AM_RequestMedium0 (implicit handle for LC)",
                (i, n) -> am.requestMedium(peer, PING_MEDIUM, msgbuf, 0, n, Lc.GROUP),
                this::waitNbi, this::receiveAms, maxMedium);
        }
        if (o.amLong() && o.blocking()) {
            amcount = 0;
            queueTest("gex_AM_RequestLong0 (blocking for LC)",
                (i, n) -> am.requestLong(peer, PING_LONG, msgbuf, 0, n, tgtmem, Lc.NOW),
                this::nothing, this::receiveAms, maxLong);
        }
        if (o.amLong() && o.explicit()) {
            queueTest("gex_AM_RequestLong0 (explicit handle for LC)",
                (i, n) -> am.requestLong(peer, PING_LONG, msgbuf, 0, n, tgtmem, lcs[i]),
                this::waitLcEvents, this::receiveAms, maxLong);
        }
        if (o.amLong() && o.implicit()) {
            queueTest("gex_AM_RequestLong0 (implicit handle for LC)",
                (i, n) -> am.requestLong(peer, PING_LONG, msgbuf, 0, n, tgtmem, Lc.GROUP),
                this::waitNbi, this::receiveAms, maxLong);
        }
    }

    /** GASNet's QUEUE_TEST. {@code payloadLimit} <= 0 means maxsz. */
    private void queueTest(String title, QueueOperation op, QueueSync sync, QueueSync receiverSync, int payloadLimit) {
        client.barrier();
        msg0(print, "\n" + title + "\n" + DASHES + "\n");
        if (rank == 0) {
            final StringBuilder header = new StringBuilder("        ");
            for (int depth = 1; depth <= o.maxDepth(); depth *= 2) {
                header.append(String.format(Locale.ROOT, " %7d", depth));
            }
            print.println(header);
            print.flush();
        }
        final int lastPayload = payloadLimit <= 0 ? passMaxSize : Math.min(passMaxSize, payloadLimit);
        progressTitle = title;
        progressCell = 0;
        progressCells = (32 - Integer.numberOfLeadingZeros(lastPayload))
            * (32 - Integer.numberOfLeadingZeros(o.maxDepth()));
        for (int payload = 1; payload <= lastPayload && payload > 0; payload *= 2) {
            final StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-8d", payload));
            if (sender) {
                op.run(0, payload);
                sync.run(1);
            }
            if (recver) {
                receiverSync.run(1);
            }
            for (int depth = 1; depth <= o.maxDepth(); depth *= 2) {
                client.barrier();
                if (sender) {
                    row.append(cell(timeCell(op, sync, receiverSync, payload, depth) / 1000.0 / passIters / depth));
                    progressCell++;
                } else {
                    receiveCell(receiverSync, depth);
                }
            }
            if (sender) {
                print.println(row);
                print.flush();
            }
        }
    }

    /** GASNet's cell: {@code " %7.*f"} with 3, 2, 1 or 0 decimals below 1000, 10000, 100000 us and above. */
    static String cell(double avgus) {
        final int precision = avgus < 1000.0 ? 3 : avgus < 10000.0 ? 2 : avgus < 100000.0 ? 1 : 0;
        return String.format(Locale.ROOT, " %7." + precision + "f", avgus);
    }

    /**
     * A read of the clock between the barrier and the timed region, kept so that C2 keeps the call. The first
     * {@code System.nanoTime} after a barrier cost 15-25 ns more than the next (its code and data cold), and the
     * depth-1 cells time a single send between two reads: 0.057-0.073 us a cell with it timed, 0.045 without. GASNet's
     * timer, {@code rdtsc}, reads no memory; its priming is of the operation only.
     */
    private long clockRead;

    /**
     * One cell on the sender: the injection time of {@code depth} back-to-back operations, summed over the pass's
     * iterations, completion outside the timed region. A method of its own so the warm-up compiles it whole.
     */
    private long timeCell(QueueOperation op, QueueSync sync, QueueSync receiverSync, int payload, int depth) {
        long total = 0;
        for (int iter = 0; iter < passIters; iter++) {
            client.barrier();
            clockRead = System.nanoTime(); // untimed, see clockRead
            final long begin = System.nanoTime();
            for (int i = 0; i < depth; i++) {
                op.run(i, payload);
            }
            final long end = System.nanoTime();
            sync.run(depth);
            if (recver) {
                receiverSync.run(depth);
            }
            client.barrier();
            total += end - begin;
            if (progress.due()) {
                progress.update("testqueue " + progressTitle + ": size " + payload + " depth " + depth,
                    (progressCell + (iter + 1.0) / passIters) / progressCells);
            }
        }
        return total;
    }

    private void receiveCell(QueueSync receiverSync, int depth) {
        for (int iter = 0; iter < passIters; iter++) {
            client.barrier();
            if (recver) {
                receiverSync.run(depth);
            }
            client.barrier();
        }
    }
}
