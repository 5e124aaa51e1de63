package org.gexj.dist;

import org.gexj.Client;
import org.gexj.Gex;
import org.gexj.GexException;

/**
 * A rank program for the unmatched-barrier test: {@code ExtraBarrier} — every rank joins, attaches a segment, passes
 * a barrier and says "ready RANK PID"; then rank 0 calls barrier() once more than the others, which pairs with their
 * close(), so its own close() can never complete and must fail naming a closed peer. Each rank prints when it
 * started its last collective ({@code rank R last collective at MILLIS}, epoch milliseconds) and how it ended. An
 * argument, milliseconds, makes rank 0 poll that long between its extra barrier and its close, so that the other
 * ranks, acknowledged, finish their close and leave before rank 0's close sends them anything.
 */
public final class ExtraBarrier {
    private ExtraBarrier() {
    }

    public static void main(String[] args) {
        final long sleepMs = args.length > 0 ? Long.parseLong(args[0]) : 0;
        final Client client = Gex.init("EXTRABARRIER");
        client.attachSegment(1 << 20);
        client.barrier();
        final int rank = client.rank();
        System.out.println("ready " + rank + " " + ProcessHandle.current().pid());
        System.out.println("rank " + rank + " last collective at " + System.currentTimeMillis());
        final long start = System.nanoTime();
        if (rank == 0) {
            client.barrier(); // the extra one: it pairs with the other ranks' close()
            final long until = System.nanoTime() + sleepMs * 1_000_000;
            while (System.nanoTime() < until) {
                client.poll();
            }
            try {
                client.close();
            } catch (GexException e) {
                System.out.printf("rank 0: close failed %.2f s after the extra barrier: %s%n",
                    (System.nanoTime() - start) / 1e9, e.getMessage());
                System.out.flush();
                throw e;
            }
            System.out.println("rank 0: close returned");
            return;
        }
        client.close();
        System.out.printf("rank %d: closed in %.2f s%n", rank, (System.nanoTime() - start) / 1e9);
    }
}
