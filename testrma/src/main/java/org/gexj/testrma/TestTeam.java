package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.benchutil.WarmupFinish;
import org.gexj.coll.Coll;
import org.gexj.coll.Team;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
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
    /** How late a rank calls each barrier in the warm-up's skewed rounds: a few one-way trips on smp. */
    private static final long LATE_NS = 2000;

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
        warmUp(client, coll, rowTeam, colTeam, warmup, out);

        if (myCol == 0) {
            print(out, rowRunning(myRow));
        }
        client.barrier();
        long start = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            coll.barrierNb(rowTeam).await();
        }
        long total = (System.nanoTime() - start) / 1000; // TIME() is in microseconds
        if (myCol == 0) {
            print(out, rowLine(myRow, total, iters));
        }

        if (myRow == 0) {
            print(out, colRunning(myCol));
        }
        client.barrier();
        start = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            coll.barrierNb(rowTeam).await();
        }
        total = (System.nanoTime() - start) / 1000;
        if (myRow == 0) {
            print(out, colLine(myCol, total, iters));
        }
        client.barrier();
        rowTeam.close();
        colTeam.close();
        print(out, "node " + rank + "/" + nodes + " done.");
        return 0;
    }

    private static String rowRunning(int row) {
        return "row team " + row + ": Running team barrier test with row teams...";
    }

    private static String colRunning(int col) {
        return "col team " + col + ": Running team barrier test with column teams...";
    }

    private static String rowLine(int row, long totalUs, int iters) {
        return String.format(Locale.ROOT, "row team %d: total time: %8.3f sec, avg row team Barrier latency:"
            + " %8.3f us", row, (float) totalUs / 1000000, (float) totalUs / iters);
    }

    private static String colLine(int col, long totalUs, int iters) {
        return String.format(Locale.ROOT, "col team %d: total time: %8.3f sec  Avg column team Barrier"
            + " latency: %8.3f us", col, (float) totalUs / 1000000, (float) totalUs / iters);
    }

    private static void spin(long ns) {
        final long end = System.nanoTime() + ns;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
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
     * 0.5). In two rounds of three, the ranks of one parity call each barrier late, so that pieces come before their
     * collective starts here: the timed loops see that often, a warm-up in step rarely, and C2 compiled the early
     * pieces' path during the first timed loop (2.2 us a barrier, in 3 of 6 runs). The lines printed between the
     * timed loops are formatted {@link WarmupFinish#betweenRows} times into a sink: formatted only there, they were
     * compiled during the next loop, on a core a rank needed (1.3-2 us a barrier in the loop after a printed line, in
     * 3 of 5 runs). Collective.
     */
    private static void warmUp(Client client, Coll coll, Team rowTeam, Team colTeam, int warmup,
        PrintStream out) {
        if (warmup == 0) {
            return;
        }
        final int each = Math.max(1, warmup / WARMUP_ROUNDS);
        for (int round = 0; round < WARMUP_ROUNDS; round++) {
            // rounds where one parity of ranks calls late: its peers' pieces come before its barrier starts
            final boolean late = round % 3 != 0 && client.rank() % 2 == round % 3 - 1;
            client.barrier();
            for (int i = 0; i < each; i++) {
                if (late) {
                    spin(LATE_NS);
                }
                coll.barrierNb(rowTeam).await();
            }
            client.barrier();
            for (int i = 0; i < each; i++) {
                if (late) {
                    spin(LATE_NS);
                }
                coll.barrierNb(colTeam).await();
            }
        }
        final WarmupFinish finish = WarmupFinish.scaled(warmup, DEFAULT_WARMUP);
        try (FileOutputStream devNull = new FileOutputStream("/dev/null")) {
            final PrintStream sink = RmaBench.printStream(devNull);
            finish.betweenRows(i -> {
                client.barrier();
                final long totalUs = 1 + i * 2_654_435_761L % 100_000_000; // digits scattered
                print(sink, (i & 1) == 0 ? rowRunning(i % 64) : colRunning(i % 64));
                print(sink, (i & 2) == 0 ? rowLine(i % 64, totalUs, 1 + i) : colLine(i % 64, totalUs, 1 + i));
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        finish.finish(client.rank(), client::barrier);
    }
}
