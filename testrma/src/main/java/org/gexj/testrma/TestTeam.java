package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.benchutil.WarmupFinish;
import org.gexj.coll.Coll;
import org.gexj.coll.Team;

import java.io.PrintStream;
import java.util.Locale;

/**
 * GASNet's testteam: a basic test of split and barrier with row and column teams. The ranks form an nrows-by-ncols
 * grid (as near square as divides the job, or as given); each rank splits the job team into its row and its column
 * team, then times {@code iters} barriers over its row team twice (GASNet's second loop, headed "column teams", also
 * uses the row team: kept, so that the rows compare). Same command line ({@code testteam (iters) (nrows) (ncols)}),
 * defaults and lines as GASNet's; the first rank of each row and of each column prints its lines, as there.
 *
 * <p>GEX/J adds {@code -warmup N} (first, default 20000, 0 = none): N silent barriers over the row team, and over the
 * column team, before the timed loops, so that the JIT has compiled the collective's path (GASNet's C needs none).
 *
 * <p>Differences from GASNet's: teams take no scratch space (GEX/J's collectives do not use segment scratch), so no
 * segment is attached for it; the test_init lines are not printed; a grid that does not divide the job is reported
 * as the usage error it is instead of an assertion failure.
 */
public final class TestTeam {
    static final String USAGE = "Usage: testteam [-warmup N] (iters) (nrows) (ncols)";
    private static final int DEFAULT_WARMUP = 20000;
    private static final int WARMUP_ROUNDS = 10;

    private TestTeam() {
    }

    public static void main(String[] args) {
        RmaBench.main("TESTTEAM", args, TestTeam::run);
    }

    /** Runs testteam on this rank (collective). @return 0, or 1 for a usage error */
    public static int run(Client client, String[] args, PrintStream out) {
        final int rank = client.rank();
        final int nodes = client.size();
        int iters = 0;
        int nrows;
        int ncols;
        int warmup = DEFAULT_WARMUP;
        String[] rest = args;
        try {
            if (rest.length >= 2 && rest[0].equals("-warmup")) {
                warmup = Integer.parseInt(rest[1]);
                if (warmup < 0) {
                    throw new NumberFormatException("-warmup " + warmup + " is negative");
                }
                rest = java.util.Arrays.copyOfRange(rest, 2, rest.length);
            }
            if (rest.length > 3) {
                throw new NumberFormatException("too many arguments");
            }
            if (rest.length > 0) {
                iters = Integer.parseInt(rest[0]);
            }
            final TeamGrid grid = TeamGrid.parse(nodes, rest, 1);
            nrows = grid.rows();
            ncols = grid.cols();
        } catch (NumberFormatException e) {
            if (rank == 0) {
                out.println("testteam: " + e.getMessage());
                out.println(USAGE);
                out.flush();
            }
            return 1;
        }
        if (iters == 0) {
            iters = 10000;
        }
        final Coll coll = Coll.of(client);
        final Team job = Team.job(client);
        msg0(client, out, "Running team test with a " + nrows + "-by-" + ncols + " grid and " + iters
            + " iterations...\n");
        client.barrier();
        final int myRow = rank / ncols;
        final int myCol = rank % ncols;
        final Team rowTeam = job.split(myRow, 1 + 2 * myCol); // gaps in the keys, as GASNet's
        final Team colTeam = job.split(myCol, myRow);
        warmUp(client, coll, rowTeam, colTeam, warmup);

        if (myCol == 0) {
            print(out, "row team " + myRow + ": Running team barrier test with row teams...");
        }
        client.barrier();
        long start = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            coll.barrierNb(rowTeam).await();
        }
        long total = (System.nanoTime() - start) / 1000; // TIME() is in microseconds
        if (myCol == 0) {
            print(out, String.format(Locale.ROOT, "row team %d: total time: %8.3f sec, avg row team Barrier latency:"
                + " %8.3f us", myRow, (float) total / 1000000, (float) total / iters));
        }

        if (myRow == 0) {
            print(out, "col team " + myCol + ": Running team barrier test with column teams...");
        }
        client.barrier();
        start = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            coll.barrierNb(rowTeam).await();
        }
        total = (System.nanoTime() - start) / 1000;
        if (myRow == 0) {
            print(out, String.format(Locale.ROOT, "col team %d: total time: %8.3f sec  Avg column team Barrier"
                + " latency: %8.3f us", myCol, (float) total / 1000000, (float) total / iters));
        }
        client.barrier();
        rowTeam.close();
        colTeam.close();
        print(out, "node " + rank + "/" + nodes + " done.");
        return 0;
    }

    /** MSG0: on rank 0, with test.h's newline after the text. */
    private static void msg0(Client client, PrintStream out, String text) {
        if (client.rank() == 0) {
            print(out, text);
        }
    }

    private static void print(PrintStream out, String line) {
        out.print(line + "\n");
        out.flush();
    }

    /**
     * The timed code's shape, {@code WARMUP_ROUNDS} times (a job barrier, then barriers over a team), then the end
     * of the warm-up ({@link WarmupFinish}: a park, the JIT's quiet, the ranks settled). Barriers alone, without
     * the job barriers between them, left the collectives' progress compiled without its idle branch: the job barrier
     * before the first timed loop deoptimised it, and C2 recompiled it during that loop (1-4 us a barrier instead of
     * 0.5). Collective.
     */
    private static void warmUp(Client client, Coll coll, Team rowTeam, Team colTeam, int warmup) {
        if (warmup == 0) {
            return;
        }
        final int each = Math.max(1, warmup / WARMUP_ROUNDS);
        for (int round = 0; round < WARMUP_ROUNDS; round++) {
            client.barrier();
            for (int i = 0; i < each; i++) {
                coll.barrierNb(rowTeam).await();
            }
            client.barrier();
            for (int i = 0; i < each; i++) {
                coll.barrierNb(colTeam).await();
            }
        }
        WarmupFinish.scaled(warmup, DEFAULT_WARMUP).finish(client.rank(), client::barrier);
    }
}
