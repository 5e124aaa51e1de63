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
          The '-warmup N' option (GEX/J; default 1000, 0 = off) first runs a silent
            pass with N iterations per size and sizes up to 65536.""";
    private Event[] events;

    private TestSmall(Client client, RmaBenchOptions options, PrintStream out) {
        super(client, options, out);
    }

    public static void main(String[] args) {
        int code;
        try (Client client = Gex.init("TESTSMALL")) {
            code = run(client, args, printStream(new FileOutputStream(FileDescriptor.out)));
        }
        System.exit(code);
    }

    /** Runs testsmall on this rank (collective). @return the exit code: 0, or 1 for a usage error */
    public static int run(Client client, String[] args, PrintStream out) {
        final RmaBenchOptions options;
        try {
            options = RmaBenchOptions.parse("testsmall", 2048, args);
        } catch (IllegalArgumentException e) {
            if (client.rank() == 0) {
                out.println("testsmall: " + e.getMessage());
                out.println(USAGE);
                out.flush();
            }
            return 1;
        }
        return new TestSmall(client, options, out).run();
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
        if (beginSection()) {
            for (long j = firstSize(); inRange(j); j = advance(j)) {
                blocking(j, true);
            }
        }
        if (beginSection()) {
            for (long j = firstSize(); inRange(j); j = advance(j)) {
                blocking(j, false);
            }
        }
        if (beginSection()) {
            for (long j = firstSize(); inRange(j); j = advance(j)) {
                roundTripNbi(j);
            }
        }
        if (beginSection()) {
            for (long j = firstSize(); inRange(j); j = advance(j)) {
                floodNbi(j);
            }
        }
        if (beginSection()) {
            for (long j = firstSize(); inRange(j); j = advance(j)) {
                roundTripNb(j);
            }
        }
        if (beginSection()) {
            for (long j = firstSize(); inRange(j); j = advance(j)) {
                floodNb(j);
            }
        }
    }

    private void fill(long nbytes) {
        msgbuf.asSlice(0, nbytes).fill((byte) 1);
    }

    private void report(long nbytes, long time, String name, boolean latency) {
        if (latency) {
            latency(nbytes, passIters, time, name, false);
        } else {
            throughput(nbytes, passIters, time, name, false);
        }
    }

    /** roundtrip_test (A) and oneway_test (B): the same blocking loops, reported as latency or throughput. */
    private void blocking(long nbytes, boolean latency) {
        final String what = latency ? " latency" : " throughput";
        fill(nbytes);
        client.barrier();
        long time = 0;
        if (sender && o.puts()) {
            final long begin = now();
            for (int i = 0; i < passIters; i++) {
                rma.put(peer, tgtmem, msgbuf, 0, nbytes);
            }
            time = now() - begin;
        }
        client.barrier();
        if (sender && o.puts()) {
            report(nbytes, time, "PutBlocking" + what, latency);
        }
        time = 0;
        if (sender && o.gets()) {
            final long begin = now();
            for (int i = 0; i < passIters; i++) {
                rma.get(msgbuf, 0, peer, tgtmem, nbytes);
            }
            time = now() - begin;
        }
        client.barrier();
        if (sender && o.gets()) {
            report(nbytes, time, "GetBlocking" + what, latency);
        }
    }

    private void roundTripNbi(long nbytes) {
        fill(nbytes);
        client.barrier();
        long time = 0;
        if (sender && o.puts()) {
            final long begin = now();
            for (int i = 0; i < passIters; i++) {
                rma.putNbi(peer, tgtmem, msgbuf, 0, nbytes, Lc.NOW);
                client.nbiWait(Ec.PUT);
            }
            time = now() - begin;
        }
        client.barrier();
        if (sender && o.puts()) {
            report(nbytes, time, "PutNBI+NOW latency", true);
        }
        time = 0;
        if (sender && o.gets()) {
            final long begin = now();
            for (int i = 0; i < passIters; i++) {
                rma.getNbi(msgbuf, 0, peer, tgtmem, nbytes);
                client.nbiWait(Ec.GET);
            }
            time = now() - begin;
        }
        client.barrier();
        if (sender && o.gets()) {
            report(nbytes, time, "GetNBI latency", true);
        }
    }

    private void floodNbi(long nbytes) {
        fill(nbytes);
        client.barrier();
        long time = 0;
        if (sender && o.puts()) {
            final long begin = now();
            for (int i = 0; i < passIters; i++) {
                rma.putNbi(peer, tgtmem, msgbuf, 0, nbytes, Lc.NOW);
            }
            client.nbiWait(Ec.PUT);
            time = now() - begin;
        }
        client.barrier();
        if (sender && o.puts()) {
            report(nbytes, time, "PutNBI+NOW throughput", false);
        }
        time = 0;
        if (sender && o.gets()) {
            final long begin = now();
            for (int i = 0; i < passIters; i++) {
                rma.getNbi(msgbuf, 0, peer, tgtmem, nbytes);
            }
            client.nbiWait(Ec.GET);
            time = now() - begin;
        }
        client.barrier();
        if (sender && o.gets()) {
            report(nbytes, time, "GetNBI throughput", false);
        }
    }

    private void roundTripNb(long nbytes) {
        fill(nbytes);
        client.barrier();
        long time = 0;
        if (sender && o.puts()) {
            final long begin = now();
            for (int i = 0; i < passIters; i++) {
                rma.putNb(peer, tgtmem, msgbuf, 0, nbytes, Lc.NOW).await();
            }
            time = now() - begin;
        }
        client.barrier();
        if (sender && o.puts()) {
            report(nbytes, time, "PutNB+NOW latency", true);
        }
        time = 0;
        if (sender && o.gets()) {
            final long begin = now();
            for (int i = 0; i < passIters; i++) {
                rma.getNb(msgbuf, 0, peer, tgtmem, nbytes).await();
            }
            time = now() - begin;
        }
        client.barrier();
        if (sender && o.gets()) {
            report(nbytes, time, "GetNB latency", true);
        }
    }

    private void floodNb(long nbytes) {
        fill(nbytes);
        client.barrier();
        long time = 0;
        if (sender && o.puts()) {
            final long begin = now();
            for (int i = 0; i < passIters; i++) {
                events[i] = rma.putNb(peer, tgtmem, msgbuf, 0, nbytes, Lc.NOW);
            }
            awaitAll(passIters);
            time = now() - begin;
        }
        client.barrier();
        if (sender && o.puts()) {
            report(nbytes, time, "PutNB+NOW throughput", false);
        }
        time = 0;
        if (sender && o.gets()) {
            final long begin = now();
            for (int i = 0; i < passIters; i++) {
                events[i] = rma.getNb(msgbuf, 0, peer, tgtmem, nbytes);
            }
            awaitAll(passIters);
            time = now() - begin;
        }
        client.barrier();
        if (sender && o.gets()) {
            report(nbytes, time, "GetNB throughput", false);
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
