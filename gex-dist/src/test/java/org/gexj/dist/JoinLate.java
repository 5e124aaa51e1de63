package org.gexj.dist;

import org.gexj.Client;
import org.gexj.Gex;

/**
 * A rank program for failure tests inside the smp conduit's create-to-unlink window: every rank says
 * "started RANK PID JOBID", then rank {@code args[0]} sleeps {@code args[1]} ms before {@code Gex.init}. Meanwhile the
 * other ranks have created their /dev/shm files and wait in the bootstrap allgather, where no rank can unlink yet.
 */
public final class JoinLate {
    private JoinLate() {
    }

    public static void main(String[] args) throws Exception {
        final int lateRank = Integer.parseInt(args[0]);
        final long sleepMs = Long.parseLong(args[1]);
        // gexrun's rank, or PMIx's under mpirun
        final String rankVariable = System.getenv("GEX_RANK") != null ? "GEX_RANK" : "PMIX_RANK";
        final int rank = Integer.parseInt(System.getenv(rankVariable));
        System.out.println("started " + rank + " " + ProcessHandle.current().pid() + " " + System.getenv("GEX_JOB_ID"));
        System.out.flush();
        if (rank == lateRank) {
            Thread.sleep(sleepMs);
        }
        try (Client client = Gex.init("JOINLATE")) {
            client.barrier();
        }
    }
}
