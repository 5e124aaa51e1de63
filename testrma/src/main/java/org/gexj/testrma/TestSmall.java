package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.Lc;

import java.io.PrintStream;

/**
 * GASNet's testsmall: non-bulk put and get (local completion before the call returns), by size and synchronisation.
 * Sections: A blocking round trip, B blocking flood, C NBI round trip, D NBI flood, E NB round trip, F NB flood; each
 * line the put's and then the get's. Same command line, sections and lines as GASNet's.
 */
public final class TestSmall extends RmaBench {
    static final String USAGE = "Usage: testsmall [options] (iters) (maxsz) (test_sections)\n"
        + RmaBenchOptions.COMMON_USAGE
        + """
          The '-minsz N' option sets the minimum transfer size tested (default is 1).
          The '-max-step N' option selects the maximum step between transfer sizes,
            which by default advance by doubling until maxsz is reached.
          The '-warmup N' option (GEX/J; default 10000 on every conduit, 0 = off)
            first runs silent passes with N iterations per size (the later ones
            N/4) and sizes up to 65536.""";

    private TestSmall(Client client, RmaBenchOptions options, PrintStream out) {
        super(client, options, out);
    }

    public static void main(String[] args) {
        main("TESTSMALL", args, TestSmall::run);
    }

    /** Runs testsmall on this rank (collective). @return the exit code: 0, or 1 for a usage error */
    public static int run(Client client, String[] args, PrintStream out) {
        return run(client, "testsmall", 2048, USAGE, args, out, TestSmall::new);
    }

    @Override
    String program() {
        return "testsmall";
    }

    @Override
    long segmentBytes() {
        return 2 * alignUp(o.maxSize(), Client.PAGE_SIZE);
    }

    @Override
    long targetOffset() {
        return alignUp(o.maxSize(), Client.PAGE_SIZE);
    }

    @Override
    long outBytes() {
        return alignUp(o.maxSize(), Client.PAGE_SIZE);
    }

    @Override
    String running() {
        return "non-bulk " + (o.puts() ? "put" : "") + (o.puts() && o.gets() ? "/" : "") + (o.gets() ? "get" : "")
            + " with local addresses " + (o.inSegment() ? "in" : "out") + "side the segment";
    }

    @Override
    void allocate(int iters) {
        events = new Event[iters];
    }

    @Override
    void gasnetWarmup() {
        final int warm = Math.min(o.iters(), 32767);
        final Event[] h = new Event[2 * warm];
        for (int i = 0; i < warm; i++) {
            rma.put(peer, tgtmem, msgbuf, 0, 8);
            rma.get(msgbuf, 0, peer, tgtmem, 8);
            rma.putNbi(peer, tgtmem, msgbuf, 0, 8, Lc.NOW);
            rma.getNbi(msgbuf, 0, peer, tgtmem, 8);
            h[i] = rma.putNb(peer, tgtmem, msgbuf, 0, 8, Lc.NOW);
            h[i + warm] = rma.getNb(msgbuf, 0, peer, tgtmem, 8);
        }
        rma.put(peer, tgtmem, msgbuf, 0, o.maxSize());
        rma.get(msgbuf, 0, peer, tgtmem, o.maxSize());
        for (Event e : h) {
            e.await();
        }
        client.nbiWait(Ec.ALL);
    }

    @Override
    void sections() {
        final String[][] names = {
            {"PutBlocking latency", "GetBlocking latency"}, {"PutBlocking throughput", "GetBlocking throughput"},
            {"PutNBI+NOW latency", "GetNBI latency"}, {"PutNBI+NOW throughput", "GetNBI throughput"},
            {"PutNB+NOW latency", "GetNB latency"}, {"PutNB+NOW throughput", "GetNB throughput"}};
        final TimedLoop[][] loops = {
            {this::putBlocking, this::getBlocking}, {this::putBlocking, this::getBlocking},
            {this::putNbiEach, this::getNbiEach}, {this::putNbiFlood, this::getNbiFlood},
            {this::putNbEach, this::getNbEach}, {this::putNbFlood, this::getNbFlood}};
        for (int s = 0; s < loops.length; s++) {
            if (beginSection()) {
                for (long j = firstSize(); inRange(j); j = advance(j)) {
                    msgbuf.asSlice(0, j).fill((byte) 1);
                    // A, C and E are round trips (one operation completes before the next starts), B, D and F floods
                    row(j, loops[s][0], names[s][0], loops[s][1], names[s][1], s % 2 == 0, false);
                }
            }
        }
    }

    private long putBlocking(long nbytes) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            rma.put(peer, tgtmem, msgbuf, 0, nbytes);
        }
        return now() - begin;
    }

    private long getBlocking(long nbytes) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            rma.get(msgbuf, 0, peer, tgtmem, nbytes);
        }
        return now() - begin;
    }

    private long putNbiEach(long nbytes) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            rma.putNbi(peer, tgtmem, msgbuf, 0, nbytes, Lc.NOW);
            client.nbiWait(Ec.PUT);
        }
        return now() - begin;
    }

    private long getNbiEach(long nbytes) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            rma.getNbi(msgbuf, 0, peer, tgtmem, nbytes);
            client.nbiWait(Ec.GET);
        }
        return now() - begin;
    }

    private long putNbiFlood(long nbytes) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            rma.putNbi(peer, tgtmem, msgbuf, 0, nbytes, Lc.NOW);
        }
        client.nbiWait(Ec.PUT);
        return now() - begin;
    }

    private long getNbiFlood(long nbytes) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            rma.getNbi(msgbuf, 0, peer, tgtmem, nbytes);
        }
        client.nbiWait(Ec.GET);
        return now() - begin;
    }

    private long putNbEach(long nbytes) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            rma.putNb(peer, tgtmem, msgbuf, 0, nbytes, Lc.NOW).await();
        }
        return now() - begin;
    }

    private long getNbEach(long nbytes) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            rma.getNb(msgbuf, 0, peer, tgtmem, nbytes).await();
        }
        return now() - begin;
    }

    private long putNbFlood(long nbytes) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            events[i] = rma.putNb(peer, tgtmem, msgbuf, 0, nbytes, Lc.NOW);
        }
        awaitAll(iters);
        return now() - begin;
    }

    private long getNbFlood(long nbytes) {
        final int iters = passIters;
        final long begin = now();
        for (int i = 0; i < iters; i++) {
            events[i] = rma.getNb(msgbuf, 0, peer, tgtmem, nbytes);
        }
        awaitAll(iters);
        return now() - begin;
    }
}
