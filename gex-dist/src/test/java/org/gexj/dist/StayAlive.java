package org.gexj.dist;

import org.gexj.Client;
import org.gexj.Gex;

/**
 * A rank program for failure tests: joins the job, attaches a segment, says "ready RANK PID", then either polls
 * forever ({@code poll}) or computes without calling GEX/J ({@code compute}), so only the failure path can end it.
 */
public final class StayAlive {
    private StayAlive() {
    }

    public static void main(String[] args) throws Exception {
        final boolean compute = args.length > 0 && args[0].equals("compute");
        final Client client = Gex.init("STAYALIVE");
        client.attachSegment(1 << 20);
        client.barrier();
        System.out.println("ready " + client.rank() + " " + ProcessHandle.current().pid());
        System.out.flush();
        long x = 0;
        while (true) {
            if (compute) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                if (x == 42) {
                    System.out.println(x);
                }
            } else {
                client.poll();
                Thread.sleep(1);
            }
        }
    }
}
