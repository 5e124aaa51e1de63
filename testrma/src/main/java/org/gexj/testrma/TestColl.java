package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.coll.Coll;
import org.gexj.coll.Team;
import org.gexj.rma.Rma;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;

/**
 * GASNet's testcoll: the correctness test of the collectives, here of {@link Coll#broadcastNb} (GASNet-EX's
 * {@code gex_Coll_BroadcastNB}). With the root first 0, then the middle rank, then the last one (each once), it runs
 * GASNet's four tests, "LOCAL/single-addr" NO/NO, MY/MY, ALL/ALL and NB, each {@code iters} broadcasts of one int of
 * test.h's random numbers, and checks the value every rank, the root included, received; ALL/ALL sets and checks it
 * through the partner rank (rank ^ 1, or itself if that is not a rank) with puts and gets, NB has all its broadcasts
 * in flight before waiting for any. Same command line ({@code testcoll (iters)}, default 1000), sections, lines and
 * data as GASNet's: the numbers come from test.h's LCG64 generator seeded 1, 2, 3, ... per test, as there; a wrong
 * value prints GASNet's "ERROR: ... broadcast validation failed" line and ends the job with exit code 1.
 *
 * <p>Differences from GASNet's: GASNet's testcoll tests the GASNet-1 legacy collectives, of which GASNet-EX's
 * {@code gex_Coll} API, the one GEX/J implements, has only the broadcast: the scatter, gather, gather_all and exchange
 * parts of each test are not run (nor the barriers that only separate them), and a line says so. Their sync flags
 * become: IN/OUT_NOSYNC, the test's own barriers around the broadcast, as in GASNet's; IN/OUT_MYSYNC, nothing, as
 * GEX/J's broadcast is in- and out-MYSYNC; IN/OUT_ALLSYNC, a barrier before the broadcast and one after its
 * completion. It is GASNet's SEQ build: GEX/J has no images (threads) per process, so the PAR build's
 * {@code [options] (iters) (threadcnt)} and its {@code -p} polling threads have no counterpart, and {@code -p} gives
 * the SEQ build's error. The segment holds only the broadcast's array, at GASNet's deliberately unaligned offset
 * (4 bytes times the rank); test.h's BARRIER is {@code gex_Coll_BarrierNB} over the job team, here
 * {@link Coll#barrier}. The test_init lines (configuration, host names) are not printed; the usage goes to the output
 * of rank 0 and is returned as exit code 1.
 */
public final class TestColl {
    static final String USAGE = "Usage: testcoll (iters)";
    static final String PAR_ONLY = "ERROR: The -p option is only available in the PAR configuration.";
    static final String SKIPPED = "Skipping the scatter, gather, gather_all and exchange parts (GASNet-1 legacy"
        + " collectives: GASNet-EX's gex_Coll API, which GEX/J implements, has none of them) and the PAR build's -p"
        + " polling threads and thread count (several images per process: GEX/J has no counterpart)";
    /** GASNet's default when {@code iters} is missing or below 1. */
    private static final int DEFAULT_ITERS = 1000;
    /** The largest value randomize draws. */
    private static final int RAND_MAX = 1_000_000_000;
    private static final String DESC = "LOCAL/single-addr";

    private final Client client;
    private final PrintStream out;
    private final Coll coll;
    private final Team team;
    private final Rma rma;
    private final int iters;
    private final int myproc;
    private final int images;
    private final int peer;
    /** GASNet's R: the values broadcast by the current test. */
    private final int[] values;
    /** GASNet's {@code static int srand_phase}: each test's seed. */
    private int srandPhase = 1;
    private MemorySegment seg;

    private TestColl(Client client, PrintStream out, int iters) {
        this.client = client;
        this.out = out;
        this.coll = Coll.of(client);
        this.team = Team.job(client);
        this.rma = Rma.of(client);
        this.iters = iters;
        this.myproc = team.rank();
        this.images = team.size();
        this.peer = (myproc ^ 1) == images ? myproc : myproc ^ 1;
        this.values = new int[iters];
    }

    public static void main(String[] args) {
        RmaBench.main("TESTCOLL", args, TestColl::run);
    }

    /** Runs testcoll on this rank (collective). @return 0, or 1 for a usage error (a failed check exits the job) */
    public static int run(Client client, String[] args, PrintStream out) {
        int arg = 0;
        boolean help = false;
        while (arg < args.length) {
            if (args[arg].equals("-p")) {
                return usageError(client, out, PAR_ONLY);
            } else if (args[arg].startsWith("-")) { // test_init's -h and --help among them
                help = true;
                arg++;
            } else {
                break;
            }
        }
        int iters = 0;
        if (arg < args.length) {
            iters = TestRatomic.atoi(args[arg++]);
        }
        if (iters < 1) {
            iters = DEFAULT_ITERS;
        }
        if (arg < args.length || help) {
            return usageError(client, out, USAGE);
        }
        return new TestColl(client, out, iters).all();
    }

    private static int usageError(Client client, PrintStream out, String text) {
        if (client.rank() == 0) {
            out.println(text);
            out.flush();
        }
        return 1;
    }

    /** GASNet's main and thread_main: the segment, the header, the tests for each root, "done.". */
    private int all() {
        seg = client.attachSegment(RmaBench.alignUp(Integer.BYTES * ((long) iters + images), Client.PAGE_SIZE))
            .memory();
        coll.barrier(team); // test_init's
        msg0("Running coll test(s) with " + iters + " iterations.");
        msg0(SKIPPED);
        coll.barrier(team);
        // Run w/ root = (first, middle, last) w/o duplication
        for (int i = 0; i < 3; ++i) {
            final int root;
            if (i == 0) {
                root = 0;
            } else if (i == 1) {
                if (images < 3) {
                    continue;
                }
                root = images / 2;
            } else {
                if (images < 2) {
                    continue;
                }
                root = images - 1;
            }
            msg0("Running tests with root = " + root);
            noNo(root);
            myMy(root);
            allAll(root);
            nb(root);
        }
        coll.barrier(team);
        msg("done.");
        return 0;
    }

    /** PROLOGUE: the test's values (the same on every rank) and its start line. @return the test's name */
    private String prologue(String sync) {
        final VisRandom rnd = new VisRandom(srandPhase++);
        for (int i = 0; i < iters; ++i) {
            values[i] = (int) rnd.rand(0, RAND_MAX);
        }
        final String name = DESC + " " + sync;
        msg0("Starting " + name + " test");
        return name;
    }

    /** NO/NO: in/out data is not generated/consumed in the same barrier phase. */
    private void noNo(int root) {
        final String name = prologue("NO/NO");
        for (int j = 0; j < iters; ++j) {
            setA(0, myproc == root ? values[j] : -1);
            coll.barrier(team);
            broadcast(root, 0).await();
            coll.barrier(team);
            if (getA(0) != values[j]) {
                fail(name + " broadcast validation failed");
            }
        }
        coll.barrier(team); // ensure validation completes before next test
    }

    /** MY/MY: in/out data is generated/consumed locally in the same barrier phase. */
    private void myMy(int root) {
        final String name = prologue("MY/MY");
        for (int j = 0; j < iters; ++j) {
            setA(0, myproc == root ? values[j] : -1);
            broadcast(root, 0).await();
            final int got = getA(0);
            if (got != values[j]) {
                fail(String.format(Locale.ROOT, "%s broadcast validation failed %d %d on %d", name, got, values[j],
                    myproc));
            }
        }
        coll.barrier(team); // ensure validation completes before next test
    }

    /** ALL/ALL: data is generated/consumed *remotely* (by the partner) in the same barrier phase. */
    private void allAll(int root) {
        final String name = prologue("ALL/ALL");
        for (int j = 0; j < iters; ++j) {
            rma.putVal(peer, offsetA(peer, 0), peer == root ? values[j] : -1, Integer.BYTES);
            coll.barrier(team); // IN_ALLSYNC: every rank's data is in place before any moves
            broadcast(root, 0).await();
            coll.barrier(team); // OUT_ALLSYNC: every rank's data has arrived before any reads it
            final int got = (int) rma.getVal(peer, offsetA(peer, 0), Integer.BYTES);
            if (got != values[j]) {
                fail(name + " broadcast validation failed");
            }
        }
        coll.barrier(team); // ensure validation completes before next test
    }

    /** NB: every broadcast in flight (each on its own int) before the first is waited for. */
    private void nb(int root) {
        final String name = prologue("NB");
        final Event[] handles = new Event[iters];
        for (int j = 0; j < iters; ++j) {
            setA(j, myproc == root ? values[j] : -1);
            handles[j] = broadcast(root, j);
        }
        for (int j = 0; j < iters; ++j) {
            handles[j].await();
            if (getA(j) != values[j]) {
                fail(name + " broadcast validation failed");
            }
        }
        coll.barrier(team); // ensure validation completes before next test
    }

    /** GASNet's {@code CALL(broadcast, ALLi(j,A), ROOTi(j,A), flags)}: the root's A[j] into every rank's A[j]. */
    private Event broadcast(int root, int j) {
        final MemorySegment dst = seg.asSlice(offsetA(myproc, j), Integer.BYTES);
        final MemorySegment src = myproc == root ? seg.asSlice(offsetA(root, j), Integer.BYTES) : null;
        return coll.broadcastNb(team, root, dst, src, Integer.BYTES);
    }

    /** Where rank {@code n}'s A[j] is in its segment: GASNet's {@code (int *)TEST_SEG(n) + n + j}. */
    private static long offsetA(int n, int j) {
        return Integer.BYTES * ((long) n + j);
    }

    private void setA(int j, int value) {
        seg.set(ValueLayout.JAVA_INT, offsetA(myproc, j), value);
    }

    private int getA(int j) {
        return seg.get(ValueLayout.JAVA_INT, offsetA(myproc, j));
    }

    /** GASNet's {@code MSG("ERROR: ..."); gasnet_exit(1)}: the job ends with exit code 1. Never returns. */
    private void fail(String text) {
        msg("ERROR: " + text);
        client.exit(1);
        throw new IllegalStateException("unreachable: exit returned");
    }

    /** MSG: "node r/n text" on every rank. */
    private void msg(String text) {
        out.print("node " + myproc + "/" + images + " " + text + "\n");
        out.flush();
    }

    /** MSG0 (and testcoll's MSG00): the text, on rank 0 only. */
    private void msg0(String text) {
        if (myproc == 0) {
            out.print(text + "\n");
            out.flush();
        }
    }
}
