package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.Gex;
import org.gexj.Lc;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;

/**
 * GASNet's testlarge: bulk put and get throughput by size (16 B .. 2 MiB by default). Sections: A blocking, B NBI
 * with deferred local completion ({@link Lc#DEFER}), C NB with DEFER, D NBI puts with {@link Lc#GROUP}, E NB puts
 * with an event for local completion. Same command line, sections and lines as GASNet's.
 */
public final class TestLarge extends RmaBench {
    static final String USAGE = "Usage: testlarge [options] (iters) (maxsz) (test_sections)\n"
        + RmaBenchOptions.COMMON_USAGE
        + """
          The '-minsz N' option sets the minimum transfer size tested (default is 16).
          The '-max-step N' option selects the maximum step between transfer sizes,
            which by default advance by doubling until maxsz is reached.
          The '-segsz N' option sets the segment space to use (in MB).
            The default is the minimum necessary to complete the tests.
          The '-lbufs N' option is valid only with '-out' and sets the number of
            distinct local (initiator-side) buffers to cycle through (default is 1).
          The '-warmup N' option (GEX/J; default 1000, 0 = off) first runs a silent
            pass with N iterations per size and sizes up to 65536.""";
    private int lbufs;
    private Event[] events;
    private Lc[] lcs;

    private TestLarge(Client client, RmaBenchOptions options, PrintStream out) {
        super(client, options, out);
    }

    public static void main(String[] args) {
        int code;
        try (Client client = Gex.init("TESTLARGE")) {
            code = run(client, args, printStream(new FileOutputStream(FileDescriptor.out)));
        }
        System.exit(code);
    }

    /** Runs testlarge on this rank (collective). @return the exit code: 0, or 1 for a usage error */
    public static int run(Client client, String[] args, PrintStream out) {
        final RmaBenchOptions options;
        try {
            options = RmaBenchOptions.parse("testlarge", 2L << 20, args);
        } catch (IllegalArgumentException e) {
            if (client.rank() == 0) {
                out.println("testlarge: " + e.getMessage());
                out.println(USAGE);
                out.flush();
            }
            return 1;
        }
        final TestLarge test = new TestLarge(client, options, out);
        if (!options.inSegment()) {
            // GASNet maps an out-of-range count to iters, silently
            test.lbufs = options.localBuffers() < 0 || options.localBuffers() > options.iters() ? options.iters()
                : options.localBuffers();
        } else if (options.localBuffers() != 0) {
            test.msg0("WARNING: Ignoring '-lbufs N' without '-out'.");
        }
        test.lbufs = Math.max(1, test.lbufs);
        return test.run();
    }

    @Override
    String program() {
        return "testlarge";
    }

    @Override
    long segmentBytes() {
        return (size == 1 ? 2 : 1) * alignUp(o.maxSize(), Client.PAGE_SIZE);
    }

    @Override
    long targetOffset() {
        return size > 1 ? 0 : alignUp(o.maxSize(), Client.PAGE_SIZE);
    }

    @Override
    long outBytes() {
        return o.maxSize() * lbufs;
    }

    @Override
    String running() {
        return "bulk " + (o.puts() ? "put" : "") + (o.puts() && o.gets() ? "/" : "") + (o.gets() ? "get" : "")
            + " with " + lbufs + " local address" + (lbufs > 1 ? "es" : "") + " " + (o.inSegment() ? "in" : "out")
            + "side the segment";
    }

    @Override
    void allocate(int iters) {
        events = new Event[2 * iters];
        lcs = new Lc[iters];
        for (int i = 0; i < iters; i++) {
            lcs[i] = Lc.event();
        }
    }

    @Override
    void gasnetWarmup() {
        final int warm = Math.min(o.iters(), 32767);
        final Event[] h = new Event[2 * warm];
        for (int i = 0; i < warm; i++) {
            rma.put(peer, tgtmem, msgbuf, 0, 8);
            rma.get(msgbuf, 0, peer, tgtmem, 8);
            rma.putNbi(peer, tgtmem, msgbuf, 0, 8, Lc.DEFER);
            rma.getNbi(msgbuf, 0, peer, tgtmem, 8);
            h[i] = rma.putNb(peer, tgtmem, msgbuf, 0, 8, Lc.DEFER);
            h[i + warm] = rma.getNb(msgbuf, 0, peer, tgtmem, 8);
        }
        for (int i = 0; i < lbufs; i++) {
            rma.put(peer, tgtmem, msgbuf, o.maxSize() * i, o.maxSize());
            rma.get(msgbuf, o.maxSize() * i, peer, tgtmem, o.maxSize());
        }
        for (Event e : h) {
            e.await();
        }
        client.nbiWait(Ec.ALL);
    }

    @Override
    void sections() {
        if (beginSection()) {
            blocking();
        }
        if (beginSection()) {
            nbi(false);
        }
        if (beginSection()) {
            nb(false);
        }
        if (beginSection()) {
            nbi(true);
        }
        if (beginSection()) {
            nb(true);
        }
    }

    /** The local offset of the {@code i}th operation: -lbufs cycles through buffers of maxsz bytes. */
    private long local(int i) {
        return lbufs > 1 ? o.maxSize() * (i % lbufs) : 0;
    }

    private void blocking() {
        for (long payload = firstSize(); inRange(payload); payload = advance(payload)) {
            client.barrier();
            long time = 0;
            if (sender && o.puts()) {
                final long begin = now();
                for (int i = 0; i < passIters; i++) {
                    rma.put(peer, tgtmem, msgbuf, local(i), payload);
                }
                time = now() - begin;
            }
            client.barrier();
            if (sender && o.puts()) {
                throughput(payload, passIters, time, "PutBlocking throughput", true);
            }
            time = 0;
            if (sender && o.gets()) {
                final long begin = now();
                for (int i = 0; i < passIters; i++) {
                    rma.get(msgbuf, local(i), peer, tgtmem, payload);
                }
                time = now() - begin;
            }
            client.barrier();
            if (sender && o.gets()) {
                throughput(payload, passIters, time, "GetBlocking throughput", true);
            }
        }
    }

    /** bulk_test_nbi: puts with DEFER or, {@code group}, GROUP local completion; gets only without {@code group}. */
    private void nbi(boolean group) {
        final Lc lc = group ? Lc.GROUP : Lc.DEFER;
        for (long payload = firstSize(); inRange(payload); payload = advance(payload)) {
            client.barrier();
            long time = 0;
            if (sender && o.puts()) {
                final long begin = now();
                for (int i = 0; i < passIters; i++) {
                    rma.putNbi(peer, tgtmem, msgbuf, local(i), payload, lc);
                }
                client.nbiWait(group ? Ec.ALL : Ec.PUT);
                time = now() - begin;
            }
            client.barrier();
            if (sender && o.puts()) {
                throughput(payload, passIters, time, group ? "PutNBI+GROUP throughput" : "PutNBI+DEFER throughput",
                    true);
            }
            time = 0;
            if (sender && o.gets() && !group) {
                final long begin = now();
                for (int i = 0; i < passIters; i++) {
                    rma.getNbi(msgbuf, local(i), peer, tgtmem, payload);
                }
                client.nbiWait(Ec.GET);
                time = now() - begin;
            }
            client.barrier();
            if (sender && o.gets() && !group) {
                throughput(payload, passIters, time, "GetNBI throughput", true);
            }
        }
    }

    /** bulk_test_nb: puts with DEFER or, {@code withEvent}, an event for local completion waited too. */
    private void nb(boolean withEvent) {
        for (long payload = firstSize(); inRange(payload); payload = advance(payload)) {
            client.barrier();
            long time = 0;
            if (sender && o.puts()) {
                final long begin = now();
                for (int i = 0; i < passIters; i++) {
                    events[i] = rma.putNb(peer, tgtmem, msgbuf, local(i), payload, withEvent ? lcs[i] : Lc.DEFER);
                }
                if (withEvent) {
                    for (int i = 0; i < passIters; i++) {
                        events[passIters + i] = lcs[i].lastEvent();
                    }
                }
                awaitAll(withEvent ? 2 * passIters : passIters);
                time = now() - begin;
            }
            client.barrier();
            if (sender && o.puts()) {
                throughput(payload, passIters, time, withEvent ? "PutNB+event throughput" : "PutNB+DEFER throughput",
                    true);
            }
            time = 0;
            if (sender && o.gets() && !withEvent) {
                final long begin = now();
                for (int i = 0; i < passIters; i++) {
                    events[i] = rma.getNb(msgbuf, local(i), peer, tgtmem, payload);
                }
                awaitAll(passIters);
                time = now() - begin;
            }
            client.barrier();
            if (sender && o.gets() && !withEvent) {
                throughput(payload, passIters, time, "GetNB throughput", true);
            }
        }
    }

    /** gex_Event_WaitAll. */
    private void awaitAll(int count) {
        for (int i = 0; i < count; i++) {
            events[i].await();
            events[i] = null;
        }
    }
}
