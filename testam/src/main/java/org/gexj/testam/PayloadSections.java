package org.gexj.testam;

import org.gexj.Client;

/**
 * GASNet's TESTAM_PERF: the five sections of one payload category (B-F for AMMedium, G-K for AMLong), each over the
 * sizes 0, 1, 2, 4... up to the category's maximum: ping-pong ReqRep and ReqReq, one-way flood, round-trip flood and
 * two-way flood. Times only the loops of {@link Exchange}; reporting follows each measurement.
 */
final class PayloadSections {
    private PayloadSections() {
    }

    /** Runs the category's five sections, with Requests up to {@code maxReq} bytes and Replies up to {@code maxRep}. */
    static void run(Client client, TestAmOptions options, Exchange ex, Report report, Sections sections,
                    Category category, long maxReq, long maxRep) {
        final long maxReqRep = Math.min(maxReq, maxRep);
        final boolean medium = category == Category.MEDIUM;
        final int ping = medium ? Handlers.PING_MEDIUM : Handlers.PING_LONG;
        final int pong = medium ? Handlers.PONG_MEDIUM : Handlers.PONG_LONG;
        final int pingFlood = medium ? Handlers.PING_MEDIUM_FLOOD : Handlers.PING_LONG_FLOOD;
        final int pongFlood = medium ? Handlers.PONG_MEDIUM_FLOOD : Handlers.PONG_LONG_FLOOD;
        final String desc = medium ? "AMMedium   " : "AMLong     ";
        final boolean sender = ex.sender;
        if (sender && !options.skipWarmup() && sections.anyOfNext(5)) {
            ex.flag = 0;
            ex.request(category, ping, maxReqRep);
            ex.blockUntil(1);
            ex.completeRequests();
            ex.flood(category, pingFlood, maxReqRep, ex.warmupIters);
            ex.blockUntil(ex.warmupIters + 1);
            ex.completeRequests();
        }
        client.barrier();
        if (sections.begin()) {
            for (long sz = 0; sz <= maxReqRep; ) {
                final String msg = Report.description(sz, desc, "ping-pong roundtrip ReqRep");
                client.barrier();
                if (sender) {
                    final long start = System.nanoTime();
                    ex.pingPong(category, ping, sz);
                    ex.completeRequests();
                    report.report(msg, System.nanoTime() - start, sz, true);
                }
                client.barrier();
                sz = report.advance(sz, maxReqRep);
            }
            report.blankLine();
        }
        client.barrier();
        if (sections.begin()) {
            for (long sz = 0; sz <= maxReq; ) {
                final String msg = Report.description(sz, desc, "ping-pong roundtrip ReqReq");
                client.barrier();
                final long start = System.nanoTime();
                ex.flag = -1;
                client.barrier();
                ex.reqReq(category, pong, sz);
                ex.completeRequests();
                report.report(msg, System.nanoTime() - start, sz, true);
                client.barrier();
                sz = report.advance(sz, maxReq);
            }
            report.blankLine();
        }
        client.barrier();
        if (sections.begin()) {
            for (long sz = 0; sz <= maxReq; ) {
                ex.flag = 0;
                final String msg = Report.description(sz, desc, "flood     one-way   Req");
                client.barrier();
                if (sender) {
                    final long start = System.nanoTime();
                    ex.flood(category, pongFlood, sz, ex.iters);
                    ex.completeRequests();
                    if (ex.recvr) {
                        ex.blockUntil(ex.iters);
                    }
                    client.barrier();
                    report.report(msg, System.nanoTime() - start, sz, false);
                } else {
                    ex.blockUntil(ex.iters);
                    client.barrier();
                }
                client.barrier();
                sz = report.advance(sz, maxReq);
            }
            report.blankLine();
        }
        client.barrier();
        if (sections.begin()) {
            for (long sz = 0; sz <= maxReqRep; ) {
                final String msg = Report.description(sz, desc, "flood     roundtrip ReqRep");
                client.barrier();
                if (sender) {
                    final long start = System.nanoTime();
                    ex.flag = 0;
                    ex.flood(category, pingFlood, sz, ex.iters);
                    ex.blockUntil(ex.iters);
                    ex.completeRequests();
                    report.report(msg, System.nanoTime() - start, sz, true);
                }
                client.barrier();
                sz = report.advance(sz, maxReqRep);
            }
            report.blankLine();
        }
        client.barrier();
        if (sections.begin()) {
            for (long sz = 0; sz <= maxReq; ) {
                final String msg = Report.description(sz, desc, "flood     two-way   Req");
                ex.flag = 0;
                client.barrier();
                final long start = System.nanoTime();
                ex.flood(category, pongFlood, sz, ex.iters);
                ex.blockUntil(ex.iters);
                ex.completeRequests();
                report.report(msg, System.nanoTime() - start, sz, false);
                client.barrier();
                sz = report.advance(sz, maxReq);
            }
            report.blankLine();
        }
        client.barrier();
    }
}
