package org.gexj.dist;

import org.gexj.Client;
import org.gexj.Gex;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.rma.Rma;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A rank program for failures in the middle of a transfer: {@code FailureFlood MODE [PAUSER PAUSE_MS]}. Every rank
 * joins, attaches a segment, says "ready RANK PID", then floods every other rank without end until the job fails:
 * {@code long}, AM Long requests of 1 MiB into the target's segment (the protocol is {@code GEX_AMLONG_PROTOCOL}'s);
 * {@code put} and {@code get}, blocking 1 MiB puts and gets; {@code barrier}, barriers back to back. Once it has sent
 * and received some of the flood it says "flooding RANK", so a test strikes in the middle of it. A run ends only by a
 * failure: the rank prints {@code rank R ended at MILLIS (epoch ms): EXCEPTION} and exits non-zero (its client closes
 * after the failure, which skips the final barrier).
 *
 * <p>With PAUSER and PAUSE_MS, rank PAUSER stops calling GEX/J for PAUSE_MS once it floods (it prints
 * {@code rank R pauses} and {@code rank R resumes}), then floods again.
 */
public final class FailureFlood {
    static final long MESSAGE = 1 << 20;
    /** What a rank sends to and receives from each peer before it says it floods. */
    private static final int WARM_UP = 4;

    private FailureFlood() {
    }

    public static void main(String[] args) throws Exception {
        final String mode = args[0];
        final int pauser = args.length > 2 ? Integer.parseInt(args[1]) : -1;
        final long pauseMillis = args.length > 2 ? Long.parseLong(args[2]) : 0;
        try (Client client = Gex.init("FAILUREFLOOD")) {
            final int rank = client.rank();
            try {
                flood(client, mode, pauser == rank ? pauseMillis : 0);
            } catch (RuntimeException e) {
                System.out.println("rank " + rank + " ended at " + System.currentTimeMillis() + ": " + e);
                System.out.flush();
                throw e;
            }
        }
    }

    private static void flood(Client client, String mode, long pauseMillis) throws InterruptedException {
        final int rank = client.rank();
        final int size = client.size();
        client.attachSegment(2 * MESSAGE);
        final Am am = Am.of(client);
        final Rma rma = Rma.of(client);
        final int[] arrived = new int[size];
        final int handler = am.register(AmHandler.longRequest(0, (token, payload, a) -> arrived[token.sourceRank()]++));
        final MemorySegment buffer = Arena.ofShared().allocate(MESSAGE, 64);
        client.barrier();
        System.out.println("ready " + rank + " " + ProcessHandle.current().pid());
        System.out.flush();
        long rounds = 0;
        boolean said = false;
        while (true) {
            if (mode.equals("barrier")) {
                client.barrier();
            } else {
                for (int i = 1; i < size; i++) {
                    final int peer = (rank + i) % size;
                    switch (mode) {
                        case "long" -> am.requestLong(peer, handler, buffer, 0, MESSAGE, 0, Lc.NOW);
                        case "put" -> rma.put(peer, 0, buffer, 0, MESSAGE);
                        case "get" -> rma.get(buffer, 0, peer, MESSAGE, MESSAGE);
                        default -> throw new IllegalArgumentException("mode " + mode + " is not long, put, get or"
                            + " barrier");
                    }
                }
                client.poll();
            }
            rounds++;
            if (!said && rounds >= WARM_UP && warm(mode, arrived, rank)) {
                said = true;
                System.out.println("flooding " + rank);
                System.out.flush();
                if (pauseMillis > 0) {
                    System.out.println("rank " + rank + " pauses");
                    System.out.flush();
                    Thread.sleep(pauseMillis); // no GEX/J call: to its peers this rank is silent
                    System.out.println("rank " + rank + " resumes at " + System.currentTimeMillis());
                    System.out.flush();
                }
            }
        }
    }

    /** Whether the flood also reached this rank: some Longs from every peer (other modes need no handler). */
    private static boolean warm(String mode, int[] arrived, int rank) {
        if (!mode.equals("long")) {
            return true;
        }
        for (int p = 0; p < arrived.length; p++) {
            if (p != rank && arrived[p] < WARM_UP) {
                return false;
            }
        }
        return true;
    }
}
