package org.gexj.dist;

import org.gexj.Client;
import org.gexj.Gex;

/**
 * A rank program for exit tests: {@code ExitWith CODE RANK} — after a barrier, rank RANK calls exit(CODE) while every
 * other rank polls forever; {@code ExitWith CODE all} — every rank calls exit(CODE).
 */
public final class ExitWith {
    private ExitWith() {
    }

    public static void main(String[] args) throws Exception {
        final int code = Integer.parseInt(args[0]);
        final Client client = Gex.init("EXITWITH");
        client.barrier();
        if (args[1].equals("all") || Integer.parseInt(args[1]) == client.rank()) {
            System.out.println("rank " + client.rank() + " exits with " + code);
            client.exit(code);
        }
        while (true) {
            client.poll();
            Thread.sleep(1);
        }
    }
}
