package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Args;
import org.gexj.am.Token;
import org.gexj.coll.Coll;
import org.gexj.coll.Team;
import org.gexj.rma.Rma;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * GASNet's testsplit: team construction and use. The ranks form an nrows-by-ncols grid; each splits the job team into
 * its row team (keys with gaps) and its column team, checks their sizes, ranks and translations both ways, splits its
 * column team into a team of itself (a second-level split), splits its row team into the odd ranks' team (the even
 * ranks join none), makes the even ranks' team from an explicit member list ({@code Team.create},
 * {@code gex_TM_Create}) and a team in reverse job order (keys decreasing); then gets and puts through each team's
 * ranks (loopback, a row ring with a row barrier, a column ring with a column barrier), sends a Short, a Medium and a
 * Long to a rank of a team, their handlers checking the job ranks, and makes and closes the odd and even teams 4096
 * times. Same command line ({@code testsplit (nrows) (ncols)}) and lines as GASNet's; an assertion that fails prints
 * its expression and ends the job with exit code 1.
 *
 * <p>Differences from GASNet's: GEX/J's teams take no scratch space, so the scratch-size queries and the checks of
 * the scratch a closed team gives back have no counterpart; AM and RMA calls take job ranks, so a team's rank is
 * translated by {@code team.jobRank} where GASNet passes the team (its {@code gex_TM_TranslateRankToEP} check is the
 * same translation); the test_init lines are not printed.
 */
public final class TestSplit {
    static final String USAGE = "Usage: testsplit (nrows) (ncols)";
    private static final int PONG = 200;
    private static final int RANK_SHORT = 201;
    private static final int RANK_MEDIUM = 202;
    private static final int RANK_LONG = 203;

    private final Client client;
    private final PrintStream out;
    private final int myrank;
    private final int nranks;
    private final AtomicInteger amCounter = new AtomicInteger();

    private TestSplit(Client client, PrintStream out) {
        this.client = client;
        this.out = out;
        this.myrank = client.rank();
        this.nranks = client.size();
    }

    public static void main(String[] args) {
        RmaBench.main("TESTSPLIT", args, TestSplit::run);
    }

    /** Runs testsplit on this rank (collective). @return 0, or 1 for a usage error (a failed check exits the job) */
    public static int run(Client client, String[] args, PrintStream out) {
        final TeamGrid grid;
        try {
            if (args.length > 2) {
                throw new NumberFormatException("too many arguments");
            }
            grid = TeamGrid.parse(client.size(), args, 0);
        } catch (NumberFormatException e) {
            if (client.rank() == 0) {
                out.println("testsplit: " + e.getMessage());
                out.println(USAGE);
                out.flush();
            }
            return 1;
        }
        new TestSplit(client, out).test(grid.rows(), grid.cols());
        return 0;
    }

    private void test(int nrows, int ncols) {
        final int myrow = myrank / ncols;
        final int mycol = myrank % ncols;
        if (myrank == 0) {
            print("Running split test with a " + nrows + "-by-" + ncols + " grid.");
        }
        final MemorySegment seg = client.attachSegment(Client.PAGE_SIZE).memory();
        client.barrier();
        final Team myteam = Team.job(client);
        final Coll coll = Coll.of(client);

        final Team rowtm = myteam.split(myrow, 1 + 2 * mycol);
        check(rowtm != myteam, "rowtm != myteam");
        check(rowtm.rank() == mycol, "gex_TM_QueryRank(rowtm) == mycol");
        check(rowtm.size() == ncols, "gex_TM_QuerySize(rowtm) == ncols");
        for (int rank = 0; rank < ncols; ++rank) {
            final int jobrank = myrow * ncols + rank;
            check(rowtm.jobRank(rank) == jobrank, "gex_TM_TranslateRankToJobrank(rowtm, rank) == jobrank");
            check(rowtm.teamRank(jobrank) == rank, "gex_TM_TranslateJobrankToRank(rowtm, jobrank) == rank");
        }

        final Team coltm = myteam.split(mycol, myrow);
        check(coltm != myteam, "coltm != myteam");
        check(coltm.rank() == myrow, "gex_TM_QueryRank(coltm) == myrow");
        check(coltm.size() == nrows, "gex_TM_QuerySize(coltm) == nrows");
        for (int rank = 0; rank < nrows; ++rank) {
            final int jobrank = mycol + ncols * rank;
            check(coltm.jobRank(rank) == jobrank, "gex_TM_TranslateRankToJobrank(coltm, rank) == jobrank");
            check(coltm.teamRank(jobrank) == rank, "gex_TM_TranslateJobrankToRank(coltm, jobrank) == rank");
        }

        // singleton team: a second-level split, of coltm
        final Team onetm = coltm.split(myrank, 0);
        check(onetm != coltm, "onetm != coltm");
        check(onetm.rank() == 0, "gex_TM_QueryRank(onetm) == 0");
        check(onetm.size() == 1, "gex_TM_QuerySize(onetm) == 1");
        check(onetm.jobRank(0) == myrank, "gex_TM_TranslateRankToJobrank(onetm, 0) == myrank");
        check(onetm.teamRank(myrank) == 0, "gex_TM_TranslateJobrankToRank(onetm, myrank) == 0");

        Team oddtm = odds(rowtm);
        Team eventm = evens(myteam);

        // "rev" team reversing the job team's order
        final int alpha = 7;
        final int beta = 4;
        final Team revtm = myteam.split(0xf00, alpha + beta * (nranks - (myrank + 1)));
        check(revtm != myteam, "revtm != myteam");
        check(revtm.size() == nranks, "gex_TM_QuerySize(revtm) == nranks");
        check(revtm.rank() == nranks - (myrank + 1), "gex_TM_QueryRank(revtm) == (nranks - (myrank + 1))");

        // some basic validation by communicating within the new teams
        final Rma rma = Rma.of(client);
        seg.set(ValueLayout.JAVA_INT, 0, myrank);
        seg.set(ValueLayout.JAVA_INT, 4, Team.INVALID_RANK);
        seg.set(ValueLayout.JAVA_INT, 8, Team.INVALID_RANK);
        client.barrier();
        final MemorySegment var = Arena.ofAuto().allocate(4, 4);
        // loopback gets four ways
        check(rma.getVal(myteam.jobRank(myrank), 0, 4) == myrank, "rank_var == myrank");
        var.set(ValueLayout.JAVA_INT, 0, Team.INVALID_RANK);
        rma.get(var, 0, onetm.jobRank(0), 0, 4);
        check(var.get(ValueLayout.JAVA_INT, 0) == myrank, "rank_var == myrank");
        var.set(ValueLayout.JAVA_INT, 0, Team.INVALID_RANK);
        rma.getNb(var, 0, rowtm.jobRank(mycol), 0, 4).await();
        check(var.get(ValueLayout.JAVA_INT, 0) == myrank, "rank_var == myrank");
        var.set(ValueLayout.JAVA_INT, 0, Team.INVALID_RANK);
        rma.getNbi(var, 0, coltm.jobRank(myrow), 0, 4);
        client.nbiWait(Ec.GET);
        check(var.get(ValueLayout.JAVA_INT, 0) == myrank, "rank_var == myrank");
        client.barrier();

        // blocking loopback put on the singleton team
        rma.putVal(onetm.jobRank(0), 0, myrank ^ 42, 4);
        check(seg.get(ValueLayout.JAVA_INT, 0) == (myrank ^ 42), "rank_arr[0] == rank_var");

        // PutNB on the row ring
        var.set(ValueLayout.JAVA_INT, 0, myrank);
        int peer = (mycol + 1) % ncols;
        rma.putNb(rowtm.jobRank(peer), 4, var, 0, 4, Lc.NOW).await();
        coll.barrierNb(rowtm).await();
        check(seg.get(ValueLayout.JAVA_INT, 4) == rowtm.jobRank((mycol + ncols - 1) % ncols),
            "rank_arr[1] == gex_TM_TranslateRankToJobrank(rowtm, (mycol+ncols-1)%ncols)");

        // PutNBI on the column ring
        peer = (myrow + 1) % nrows;
        rma.putNbi(coltm.jobRank(peer), 8, var, 0, 4, Lc.NOW);
        client.nbiWait(Ec.PUT);
        coll.barrierNb(coltm).await();
        check(seg.get(ValueLayout.JAVA_INT, 8) == coltm.jobRank((myrow + nrows - 1) % nrows),
            "rank_arr[2] == gex_TM_TranslateRankToJobrank(coltm, (myrow+nrows-1)%nrows)");

        amTests(rowtm, coltm, onetm, mycol, myrow, ncols, nrows);

        // a barrier over the evens or the odds, then close it
        final Team mine = (myrank & 1) != 0 ? oddtm : eventm;
        coll.barrierNb(mine).await();
        mine.close();

        // make and close them again and again
        for (int i = 0; i < 4096; ++i) {
            eventm = evens(myteam);
            oddtm = odds(rowtm);
            ((myrank & 1) != 0 ? oddtm : eventm).close();
        }
        onetm.close();
        rowtm.close();
        coltm.close();
        revtm.close();
        print("node " + myrank + "/" + nranks + " done.");
    }

    /** The odd ranks of the row (key 0 everywhere: ties go by place in the row); null on even ranks. */
    private Team odds(Team rowtm) {
        final boolean odd = (myrank & 1) != 0;
        final Team oddtm = rowtm.split(odd ? 0 : Team.UNDEFINED, 0);
        if (odd) {
            check(oddtm != null && oddtm != rowtm, "oddtm != rowtm");
            final int size = oddtm.size();
            check(size <= rowtm.size(), "size <= gex_TM_QuerySize(rowtm)");
            // tie-breaks on key 0 follow the parent's order (the row is in job order and contiguous)
            final int first = oddtm.jobRank(0);
            for (int rank = 1; rank < size; ++rank) {
                check(oddtm.jobRank(rank) == first + 2 * rank, "jobrank == first + 2*rank");
            }
            check(oddtm.teamRank(0) == Team.INVALID_RANK,
                "GEX_RANK_INVALID == gex_TM_TranslateJobrankToRank(oddtm,0)");
        } else {
            check(oddtm == null, "oddtm == rowtm");
        }
        return oddtm;
    }

    /** The even ranks of the job, from an explicit member list; null on odd ranks. */
    private Team evens(Team myteam) {
        final boolean even = (myrank & 1) == 0;
        final int nmembers = even ? (myteam.size() + 1) / 2 : 0;
        final int[] members = new int[nmembers];
        for (int i = 0; i < nmembers; ++i) {
            members[i] = i * 2;
        }
        final Team eventm = myteam.create(members);
        if (even) {
            check(eventm != null, "eventm != coltm");
            check(eventm.size() == nmembers, "gex_TM_QuerySize(eventm) == nmembers");
            for (int rank = 0; rank < nmembers; ++rank) {
                check(eventm.jobRank(rank) == 2 * rank, "jobrank == 2*rank");
            }
        } else {
            check(eventm == null, "eventm == coltm");
        }
        return eventm;
    }

    /** A Short to the next in the row, a Medium to the next in the column, a Long to this rank's singleton team. */
    private void amTests(Team rowtm, Team coltm, Team onetm, int mycol, int myrow, int ncols, int nrows) {
        final Am am = Am.of(client);
        am.register(PONG, AmHandler.shortReply(1, (token, args) -> {
            check(args.get(0) == token.sourceRank(), "(gex_Rank_t)arg0 == info.gex_srcrank");
            amCounter.incrementAndGet();
        }));
        am.register(RANK_SHORT, AmHandler.shortRequest(2, this::validate));
        // GASNet registers one handler for Medium and Long (GEX_FLAG_AM_MEDLONG); a GEX/J handler has one category
        am.register(RANK_MEDIUM, AmHandler.mediumRequest(2, (token, payload, args) -> validate(token, args)));
        am.register(RANK_LONG, AmHandler.longRequest(2, (token, payload, args) -> validate(token, args)));
        client.barrier();
        int peer = (mycol + 1) % ncols;
        am.requestShort(rowtm.jobRank(peer), RANK_SHORT, rowtm.jobRank(peer), myrank);
        peer = (myrow + 1) % nrows;
        am.requestMedium(coltm.jobRank(peer), RANK_MEDIUM, null, 0, 0, Lc.NOW, coltm.jobRank(peer), myrank);
        am.requestLong(onetm.jobRank(0), RANK_LONG, null, 0, 0, 0, Lc.NOW, myrank, myrank);
        while (amCounter.get() != 3) {
            client.poll();
        }
        client.barrier();
    }

    private void validate(Token token, Args args) {
        check(args.get(0) == myrank, "(gex_Rank_t)arg0 == myrank");
        check(args.get(1) == token.sourceRank(), "(gex_Rank_t)arg1 == info.gex_srcrank");
        token.replyShort(PONG, myrank);
    }

    /** assert_always: a failure prints its expression and ends the job with exit code 1. */
    private void check(boolean ok, String expr) {
        if (!ok) {
            out.print("ERROR: node " + myrank + "/" + nranks + " Assertion failure: " + expr + " (at "
                + RatomicRun.caller() + ")\n");
            out.flush();
            client.exit(1);
        }
    }

    private void print(String line) {
        out.print(line + "\n");
        out.flush();
    }
}
