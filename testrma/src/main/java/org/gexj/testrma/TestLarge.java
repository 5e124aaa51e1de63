package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.Lc;

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
          The '-warmup N' option (GEX/J; default 10000 on every conduit, 0 = off)
            first runs silent passes with N iterations per size (the later ones
            N/4) and sizes up to 65536.""";
    private int lbufs;
    private Lc[] lcs;

    private TestLarge(Client client, RmaBenchOptions options, PrintStream out) {
        super(client, options, out);
    }

    public static void main(String[] args) {
        main("TESTLARGE", args, TestLarge::run);
    }

    /** Runs testlarge on this rank (collective). @return the exit code: 0, or 1 for a usage error */
    public static int run(Client client, String[] args, PrintStream out) {
        return run(client, "testlarge", 2L << 20, USAGE, args, out, TestLarge::new);
    }

    /** -lbufs: GASNet's rules, then the common run. */
    @Override
    int run() {
        if (!o.inSegment()) {
            // GASNet maps an out-of-range count to iters, silently
            lbufs = o.localBuffers() < 0 || o.localBuffers() > o.iters() ? o.iters() : o.localBuffers();
        } else if (o.localBuffers() != 0) {
            msg0("WARNING: Ignoring '-lbufs N' without '-out'.");
        }
        lbufs = Math.max(1, lbufs);
        return super.run();
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
            for (long j = firstSize(); inRange(j); j = advance(j)) {
                row(j, this::putBlocking, "PutBlocking throughput", this::getBlocking, "GetBlocking throughput",
                    false, true);
            }
        }
        if (beginSection()) {
            for (long j = firstSize(); inRange(j); j = advance(j)) {
                row(j, this::putNbiDefer, "PutNBI+DEFER throughput", this::getNbi, "GetNBI throughput", false, true);
            }
        }
        if (beginSection()) {
            for (long j = firstSize(); inRange(j); j = advance(j)) {
                row(j, this::putNbDefer, "PutNB+DEFER throughput", this::getNb, "GetNB throughput", false, true);
            }
        }
        if (beginSection()) {
            for (long j = firstSize(); inRange(j); j = advance(j)) {
                row(j, this::putNbiGroup, "PutNBI+GROUP throughput", null, null, false, true);
            }
        }
        if (beginSection()) {
            for (long j = firstSize(); inRange(j); j = advance(j)) {
                row(j, this::putNbEvent, "PutNB+event throughput", null, null, false, true);
            }
        }
    }

    /** The local offset of the {@code i}th operation: -lbufs cycles through buffers of maxsz bytes. */
    private long local(int i) {
        return lbufs > 1 ? o.maxSize() * (i % lbufs) : 0;
    }

    private long putBlocking(long payload) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            rma.put(peer, tgtmem, msgbuf, local(i), payload);
        }
        return now() - begin;
    }

    private long getBlocking(long payload) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            rma.get(msgbuf, local(i), peer, tgtmem, payload);
        }
        return now() - begin;
    }

    private long putNbiDefer(long payload) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            rma.putNbi(peer, tgtmem, msgbuf, local(i), payload, Lc.DEFER);
        }
        client.nbiWait(Ec.PUT);
        return now() - begin;
    }

    /** Local completion counted in the NBI group, so the wait takes {@link Ec#ALL}, as GASNet's. */
    private long putNbiGroup(long payload) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            rma.putNbi(peer, tgtmem, msgbuf, local(i), payload, Lc.GROUP);
        }
        client.nbiWait(Ec.ALL);
        return now() - begin;
    }

    private long getNbi(long payload) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            rma.getNbi(msgbuf, local(i), peer, tgtmem, payload);
        }
        client.nbiWait(Ec.GET);
        return now() - begin;
    }

    private long putNbDefer(long payload) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            events[i] = rma.putNb(peer, tgtmem, msgbuf, local(i), payload, Lc.DEFER);
        }
        awaitAll(iters);
        return now() - begin;
    }

    /** Each put's local-completion event is waited too, as GASNet's WaitAll over both arrays. */
    private long putNbEvent(long payload) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            events[i] = rma.putNb(peer, tgtmem, msgbuf, local(i), payload, lcs[i]);
        }
        for (int i = 0; i < iters; i++) {
            events[iters + i] = lcs[i].lastEvent();
        }
        awaitAll(2 * iters);
        return now() - begin;
    }

    private long getNb(long payload) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            events[i] = rma.getNb(msgbuf, local(i), peer, tgtmem, payload);
        }
        awaitAll(iters);
        return now() - begin;
    }
}
