package org.gexj.dist;

import org.gexj.Client;
import org.gexj.Gex;

/**
 * A rank program for failure tests: {@code BarrierWait VICTIM} — every rank joins, attaches a segment, passes a
 * barrier and says "ready RANK PID"; then rank VICTIM sleeps without calling GEX/J while every other rank waits in a
 * second barrier that only VICTIM could complete, so only the failure path can end them.
 */
public final class BarrierWait {
    private BarrierWait() {
    }

    public static void main(String[] args) throws Exception {
        final int victim = Integer.parseInt(args[0]);
        final Client client = Gex.init("BARRIERWAIT");
        client.attachSegment(1 << 20);
        client.barrier();
        System.out.println("ready " + client.rank() + " " + ProcessHandle.current().pid());
        System.out.flush();
        if (client.rank() == victim) {
            while (true) {
                Thread.sleep(1000);
            }
        }
        client.barrier();
        System.out.println("rank " + client.rank() + " passed a barrier rank " + victim + " never entered");
    }
}
