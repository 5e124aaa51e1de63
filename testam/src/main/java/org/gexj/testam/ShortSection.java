package org.gexj.testam;

import org.gexj.Client;

/**
 * Section A, AMShort: GASNet's warm-up flood, then ping-pong round trips (ReqRep and ReqReq), a one-way flood and a
 * round-trip flood. Times only the loops of {@link Exchange}; reporting follows each measurement.
 */
final class ShortSection {
    private ShortSection() {
    }

    /** Runs section A of the current pass, counting its letter on {@code sections}. */
    static void run(Client client, TestAmOptions options, Exchange ex, Report report, Sections sections) {
        final boolean sender = ex.sender;
        if (sections.begin() && sender && !options.skipWarmup()) {
            ex.flag = 0;
            ex.shortFlood(Handlers.PING_SHORT_FLOOD, ex.warmupIters);
            ex.blockUntil(ex.warmupIters);
            ex.requestShort(Handlers.PING_SHORT);
            ex.blockUntil(ex.warmupIters + 1);
        }
        client.barrier();
        if (sections.enabled() && sender) {
            final long start = System.nanoTime();
            ex.shortPingPong();
            report.report("        AMShort     ping-pong roundtrip ReqRep", System.nanoTime() - start, 0, true);
        }
        client.barrier();
        if (sections.enabled()) {
            final long start = System.nanoTime();
            ex.flag = -1;
            client.barrier();
            ex.shortReqReq();
            report.report("        AMShort     ping-pong roundtrip ReqReq", System.nanoTime() - start, 0, true);
            report.blankLine();
        }
        client.barrier();
        if (sections.enabled()) {
            if (sender) {
                final long start = System.nanoTime();
                ex.flag = 0;
                client.barrier();
                ex.shortFlood(Handlers.PONG_SHORT_FLOOD, ex.iters);
                if (ex.recvr) {
                    ex.blockUntil(ex.iters);
                }
                client.barrier();
                report.report("        AMShort     flood     one-way   Req", System.nanoTime() - start, 0, false);
            } else {
                ex.flag = 0;
                client.barrier();
                ex.blockUntil(ex.iters);
                client.barrier();
            }
            report.blankLine();
        }
        client.barrier();
        if (sections.enabled() && sender) {
            final long start = System.nanoTime();
            ex.flag = 0;
            ex.shortFlood(Handlers.PING_SHORT_FLOOD, ex.iters);
            ex.blockUntil(ex.iters);
            report.report("        AMShort     flood     roundtrip ReqRep", System.nanoTime() - start, 0, true);
            report.blankLine();
        }
        client.barrier();
    }
}
