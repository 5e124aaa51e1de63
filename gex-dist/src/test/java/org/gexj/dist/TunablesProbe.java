package org.gexj.dist;

import org.gexj.Client;
import org.gexj.Gex;

/**
 * A rank program for the launchers' environment tests: joins the job, prints "tunables RANK VALUE" with the
 * {@code GLIBC_TUNABLES} its process started with ("none" if unset), and leaves at a barrier.
 */
public final class TunablesProbe {
    private TunablesProbe() {
    }

    public static void main(String[] args) throws Exception {
        try (Client client = Gex.init("TUNABLESPROBE")) {
            final String tunables = System.getenv("GLIBC_TUNABLES");
            System.out.println("tunables " + client.rank() + " " + (tunables == null ? "none" : tunables));
            System.out.flush();
            client.barrier();
        }
    }
}
