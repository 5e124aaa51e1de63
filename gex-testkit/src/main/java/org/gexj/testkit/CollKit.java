package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.GexException;
import org.gexj.PeerFailedException;
import org.gexj.coll.Coll;
import org.gexj.coll.ReduceFunction;
import org.gexj.coll.ReduceOp;
import org.gexj.coll.Team;
import org.gexj.rma.AtomicType;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * Teams and collectives ({@link Team}, {@link Coll}) on every conduit, at 2, 3, 4 and 5 ranks (odd sizes shape
 * trees differently): splits against a stable sort by (key, rank); random batches of barriers, broadcasts and
 * reductions (every built-in type and operator, and a user-defined one), many in flight at once, on the job team and
 * on a split team, against the sequential {@link CollModel}; a barrier that no rank leaves before every rank entered;
 * members whose calls differ fail instead of waiting; bad input refused before anything is sent; collectives in step
 * allocate nothing once warm; threads of a rank issue collectives on their own teams while another thread polls.
 */
public abstract class CollKit extends ConduitKit {
    private static final int EXAMPLES = 2;
    private static final int BATCHES = 12;
    /** {@link #collectivesInStepAllocateNothingOnceWarm}: rounds before measuring, rounds a window, windows. */
    private static final int WARM_ITERATIONS = 1500;
    private static final int WINDOW_ITERATIONS = 100;
    private static final int WINDOWS = 6;
    /** Elements of the user-defined type: (sum of a long, maximum of a long). */
    static final ReduceFunction SUM_AND_MAX = (in, io, n) -> {
        for (long i = 0; i < n; i++) {
            final long at = 16 * i;
            io.set(ValueLayout.JAVA_LONG_UNALIGNED, at, io.get(ValueLayout.JAVA_LONG_UNALIGNED, at)
                + in.get(ValueLayout.JAVA_LONG_UNALIGNED, at));
            io.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, Math.max(io.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 8),
                in.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 8)));
        }
    };

    /**
     * For each job size, random splits and random batches of collectives on the job team and the split team, issued
     * together and awaited in a random order, each result checked against the model.
     */
    @Test
    void splitsAndCollectivesMatchASequentialModel() {
        final var theory = launchesProcesses() ? qt().withFixedSeed(seed()) : qt();
        for (int n = 2; n <= 5; n++) {
            final int ranks = n;
            theory.withExamples(EXAMPLES).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed -> job(ranks,
                client -> {
                    final Random shared = new Random(seed);
                    final int[] colors = new int[ranks];
                    final int[] keys = new int[ranks];
                    for (int r = 0; r < ranks; r++) {
                        colors[r] = shared.nextInt(6) == 0 ? Team.UNDEFINED : shared.nextInt(3);
                        keys[r] = shared.nextInt(5) - 2;
                    }
                    final Team job = Team.job(client);
                    final Team team = job.split(colors[client.rank()], keys[client.rank()]);
                    checkSplit(client, team, colors, keys);
                    checkCreate(client, job, colors);
                    runBatches(client, job, seed, new Random(seed ^ client.rank()));
                    if (team != null) {
                        runBatches(client, team, seed * 7 + colors[client.rank()], new Random(~seed ^ client.rank()));
                        team.close();
                    }
                    Coll.of(client).barrier(job);
                }));
        }
    }

    private static void checkSplit(Client client, Team team, int[] colors, int[] keys) {
        final int me = client.rank();
        if (colors[me] == Team.UNDEFINED) {
            assertNull(team, "rank " + me + " passed UNDEFINED");
            return;
        }
        final List<Integer> members = CollModel.members(colors, keys, colors[me]);
        assertEquals(members.size(), team.size(), "size of " + team);
        assertEquals(members.indexOf(me), team.rank(), "rank of " + me + " in " + team);
        for (int i = 0; i < members.size(); i++) {
            assertEquals(members.get(i), team.jobRank(i), "job rank of team rank " + i);
        }
        for (int j = 0; j < client.size(); j++) {
            assertEquals(members.indexOf(j), team.teamRank(j), "team rank of job rank " + j);
        }
    }

    /**
     * {@code create} from explicit lists: each color's members, listed in reverse job order, make a team in that
     * order; ranks of no color pass an empty list and get none.
     */
    private static void checkCreate(Client client, Team job, int[] colors) {
        final int me = client.rank();
        final List<Integer> members = new ArrayList<>();
        for (int r = client.size() - 1; r >= 0; r--) {
            if (colors[me] != Team.UNDEFINED && colors[r] == colors[me]) {
                members.add(r);
            }
        }
        final Team made = job.create(members.stream().mapToInt(Integer::intValue).toArray());
        if (members.isEmpty()) {
            assertNull(made, "rank " + me + " listed no members");
            return;
        }
        assertEquals(members.size(), made.size(), "size of " + made);
        for (int i = 0; i < members.size(); i++) {
            assertEquals(members.get(i), made.jobRank(i), "job rank of created team rank " + i);
        }
        Coll.of(client).barrier(made);
        made.close();
    }

    /** A step's collective, its buffers and how to check its result once complete. */
    private record Step(Event event, Runnable check) {
    }

    private static void runBatches(Client client, Team team, long seed, Random local) {
        final Coll coll = Coll.of(client);
        final Random draws = new Random(seed); // the same on every member: the same collectives in the same order
        int step = 0;
        for (int b = 0; b < BATCHES; b++) {
            final List<Step> steps = new ArrayList<>();
            final int inBatch = 1 + draws.nextInt(6);
            for (int k = 0; k < inBatch; k++) {
                steps.add(issue(coll, team, seed, step++, draws));
            }
            while (!steps.isEmpty()) {
                final Step s = steps.remove(local.nextInt(steps.size()));
                s.event.await();
                s.check.run();
            }
        }
    }

    private static Step issue(Coll coll, Team team, long seed, int step, Random draws) {
        final int n = team.size();
        final int me = team.rank();
        final int root = draws.nextInt(n);
        // mostly small; one in eight larger than any conduit's Medium, so that it moves in pieces
        final int count = draws.nextInt(8) == 0 ? 20_000 + draws.nextInt(30_000) : draws.nextInt(40);
        final AtomicType type = AtomicType.values()[draws.nextInt(AtomicType.values().length)];
        final ReduceOp drawn = ReduceOp.values()[draws.nextInt(ReduceOp.values().length)];
        final ReduceOp op = type.integer() || drawn.takesFloatingPoint() ? drawn : ReduceOp.ADD;
        final String what = "step " + step + " on " + team;
        switch (draws.nextInt(5)) {
            case 0 -> {
                return new Step(coll.barrierNb(team), () -> { });
            }
            case 1 -> {
                final MemorySegment src = contribution(type, op, seed, step, me, count);
                final MemorySegment dst = Arena.ofAuto().allocate(Math.max(1, (long) count * type.bytes()));
                final Event e = coll.broadcastNb(team, root, dst, me == root ? src : null, (long) count * type.bytes());
                return new Step(e, () -> assertArrayEquals(contribution(type, op, seed, step, root, count)
                    .toArray(ValueLayout.JAVA_BYTE), dst.asSlice(0, (long) count * type.bytes())
                    .toArray(ValueLayout.JAVA_BYTE), what + ": broadcast of " + count + " " + type + " from " + root));
            }
            case 2, 3 -> {
                final boolean toAll = draws.nextBoolean();
                final ReduceOp o = op; // the name the check reads
                final MemorySegment src = contribution(type, o, seed, step, me, count);
                final MemorySegment dst = Arena.ofAuto().allocate(Math.max(1, (long) count * type.bytes()));
                final Event e = toAll ? coll.reduceToAllNb(team, dst, src, type, count, o)
                    : coll.reduceToOneNb(team, root, me == root ? dst : null, src, type, count, o);
                return new Step(e, () -> {
                    if (toAll || me == root) {
                        for (int i = 0; i < count; i++) {
                            long expected = CollModel.element(type, o, seed, step, 0, i);
                            for (int r = 1; r < n; r++) {
                                expected = CollModel.combine(type, o, expected, CollModel.element(type, o, seed, step,
                                    r, i));
                            }
                            final long got = CollModel.read(dst, type, i);
                            if (got != expected) {
                                throw new AssertionError(what + ": " + (toAll ? "reduce-to-all" : "reduce-to-one to "
                                    + root) + " " + o + " of " + count + " " + type + ", element " + i + ": 0x"
                                    + Long.toHexString(got) + ", the model's 0x" + Long.toHexString(expected));
                            }
                        }
                    }
                });
            }
            default -> {
                final boolean toAll = draws.nextBoolean();
                final MemorySegment src = Arena.ofAuto().allocate(Math.max(16, 16L * count));
                for (int i = 0; i < count; i++) {
                    src.set(ValueLayout.JAVA_LONG_UNALIGNED, 16L * i, CollModel.element(AtomicType.INT64,
                        ReduceOp.ADD, seed, step, me, i));
                    src.set(ValueLayout.JAVA_LONG_UNALIGNED, 16L * i + 8, CollModel.element(AtomicType.INT64,
                        ReduceOp.ADD, seed, step + 1, me, i));
                }
                final MemorySegment dst = Arena.ofAuto().allocate(Math.max(16, 16L * count));
                final Event e = toAll ? coll.reduceToAllNb(team, dst, src, 16, count, SUM_AND_MAX)
                    : coll.reduceToOneNb(team, root, me == root ? dst : null, src, 16, count, SUM_AND_MAX);
                return new Step(e, () -> {
                    if (toAll || me == root) {
                        for (int i = 0; i < count; i++) {
                            long sum = 0;
                            long max = Long.MIN_VALUE;
                            for (int r = 0; r < n; r++) {
                                sum += CollModel.element(AtomicType.INT64, ReduceOp.ADD, seed, step, r, i);
                                max = Math.max(max, CollModel.element(AtomicType.INT64, ReduceOp.ADD, seed, step + 1,
                                    r, i));
                            }
                            assertEquals(sum, dst.get(ValueLayout.JAVA_LONG_UNALIGNED, 16L * i), what
                                + ": user-defined sum, element " + i);
                            assertEquals(max, dst.get(ValueLayout.JAVA_LONG_UNALIGNED, 16L * i + 8), what
                                + ": user-defined max, element " + i);
                        }
                    }
                });
            }
        }
    }

    private static MemorySegment contribution(AtomicType type, ReduceOp op, long seed, int step, int rank, int count) {
        final MemorySegment m = MemorySegment.ofArray(new byte[Math.max(1, count * type.bytes())]);
        for (int i = 0; i < count; i++) {
            CollModel.write(m, type, i, CollModel.element(type, op, seed, step, rank, i));
        }
        return m;
    }

    /**
     * Before each of 20 barriers every rank writes the barrier's number into its slot in every rank's segment, by a
     * blocking put (complete at the target); after it, every slot holds at least that number: no rank left before all
     * had entered. On the job team at 5 ranks and on a team of the odd ranks.
     */
    @Test
    void noRankLeavesABarrierBeforeEveryRankEntered() {
        job(5, client -> {
            final MemorySegment mine = client.attachSegment(64 * 1024).memory();
            mine.fill((byte) 0);
            final Rma rma = Rma.of(client);
            final Coll coll = Coll.of(client);
            final Team job = Team.job(client);
            final Team odd = job.split(client.rank() % 2 == 1 ? 1 : Team.UNDEFINED, 0);
            client.barrier();
            final MemorySegment value = Arena.ofAuto().allocate(8);
            for (int k = 1; k <= 20; k++) {
                if (odd == null && k % 2 == 0) {
                    continue; // the even barriers are the odd ranks' own
                }
                final Team t = k % 2 == 0 ? odd : job;
                value.set(ValueLayout.JAVA_LONG, 0, k);
                for (int i = 0; i < t.size(); i++) {
                    rma.put(t.jobRank(i), 8L * client.rank(), value, 0, 8);
                }
                coll.barrier(t);
                for (int i = 0; i < t.size(); i++) {
                    final long seen = mine.get(ValueLayout.JAVA_LONG, 8L * t.jobRank(i));
                    assertTrue(seen >= k, "after barrier " + k + " on " + t + ", job rank " + t.jobRank(i)
                        + " had written only " + seen);
                }
            }
            if (odd != null) {
                odd.close();
            }
            coll.barrier(job);
        });
    }

    /**
     * Members whose calls differ (a broadcast's size, a reduction's count, a barrier against a reduction) fail their
     * events with a message naming the difference, and tell the others: no rank waits for ever, and the team's next
     * collective works. (Where the trees' messages miss each other, see
     * {@link #rootsThatDifferWhereNoPieceCrossesFailAfterAProbe}.)
     */
    @Test
    void membersWhoseCallsDifferFailInsteadOfWaiting() {
        job(3, client -> {
            final Coll coll = Coll.of(client);
            final Team job = Team.job(client);
            final MemorySegment buf = Arena.ofAuto().allocate(64);
            final int me = client.rank();
            callDifferently(coll, job, buf, me);
            // each failure names what differed; ranks that only sent may complete
            try {
                coll.broadcastNb(job, 0, buf, buf, me == 2 ? 16 : 8).await();
            } catch (GexException e) {
                final String text = String.valueOf(e.getCause());
                assertTrue(text.contains("bytes where this rank expects") || text.contains("failed it"), text);
            }
            coll.barrier(job);
        });
    }

    /**
     * Roots that differ where no piece crosses between the members who disagree, so that each waits for a piece the
     * other never sends: at 3 ranks, a reduce-to-one whose ranks 0 and 1 name root 0 and rank 2 names itself (rank 1
     * sends to 0; 0 waits for 2; 2 waits for 0 and 1); at 4 ranks, ranks 0 and 1 name 0, ranks 2 and 3 name 2 (rank
     * 3 finishes, so a probe of it is answered from what it remembers). Flat and binomial trees (8 and 8192 bytes).
     * After {@code GEX_COLL_PROBE_MS} (here 100) of silence the waiting ranks ask the others to compare their calls:
     * every rank that waits fails naming the roots, and the team's next collectives work.
     */
    @Test
    void rootsThatDifferWhereNoPieceCrossesFailAfterAProbe() {
        for (int n : new int[] {3, 4}) {
            job(n, Map.of("GEX_COLL_PROBE_MS", "100"), client -> {
                final Coll coll = Coll.of(client);
                final Team job = Team.job(client);
                final int me = client.rank();
                final int root = me < 2 ? 0 : 2;
                final boolean waits = me == 0 || me == 2;
                for (int bytes : new int[] {8, 8192}) {
                    final MemorySegment src = Arena.ofAuto().allocate(bytes);
                    final MemorySegment dst = Arena.ofAuto().allocate(bytes);
                    final Event reduce = coll.reduceToOneNb(job, root, dst, src, AtomicType.INT64, bytes / 8,
                        ReduceOp.ADD);
                    if (waits) {
                        final GexException e = assertThrows(GexException.class, reduce::await,
                            "rank " + me + " of " + n + " waited on root " + root + " (" + bytes + " B)");
                        final String text = String.valueOf(e.getCause());
                        assertTrue(text.contains("root"), "rank " + me + ": " + text);
                    } else {
                        try {
                            reduce.await(); // a leaf that only sent may complete
                        } catch (GexException e) {
                            assertTrue(String.valueOf(e.getCause()).contains("root"), String.valueOf(e.getCause()));
                        }
                    }
                    final MemorySegment one = MemorySegment.ofArray(new long[] {me + 1});
                    final MemorySegment all = MemorySegment.ofArray(new long[1]);
                    coll.reduceToAllNb(job, all, one, AtomicType.INT64, 1, ReduceOp.ADD).await();
                    assertEquals((long) n * (n + 1) / 2, all.get(ValueLayout.JAVA_LONG, 0), "the next collective");
                }
                coll.barrier(job);
            });
        }
    }

    /**
     * Collectives whose members' calls differ (a broadcast's size, a reduction's count, a barrier against a
     * reduction), each followed by a reduction that checks that some rank found it out.
     */
    private static void callDifferently(Coll coll, Team job, MemorySegment buf, int me) {
        final List<Throwable> failures = new ArrayList<>();
        final Runnable[] mismatches = {
            () -> coll.broadcastNb(job, 0, buf, buf, me == 2 ? 16 : 8).await(),
            () -> coll.reduceToOneNb(job, 0, buf, buf, AtomicType.INT64, me == 1 ? 3 : 2, ReduceOp.ADD).await(),
            () -> (me == 0 ? coll.barrierNb(job) : coll.reduceToAllNb(job, buf, buf, AtomicType.INT32, 4,
                ReduceOp.MAX)).await(),
        };
        for (Runnable m : mismatches) {
            try {
                m.run();
            } catch (GexException e) {
                failures.add(e);
            }
            final MemorySegment one = MemorySegment.ofArray(new long[] {failures.isEmpty() ? 0 : 1});
            final MemorySegment all = MemorySegment.ofArray(new long[1]);
            coll.reduceToAllNb(job, all, one, AtomicType.INT64, 1, ReduceOp.ADD).await();
            failures.clear();
            assertTrue(all.get(ValueLayout.JAVA_LONG, 0) >= 1, "no rank found the calls differ");
        }
    }

    /**
     * Collectives that failed leave nothing behind: after calls that differ and more collectives on the same team,
     * every rank's collectives hold no operation, no early piece (the late pieces and failure notices of collectives
     * finished here are dropped, not kept) and no notice to send, and count nothing to progress, so that an idle
     * poll skips them. Read through the package-private {@code Coll.held()}, polling until it settles.
     */
    @Test
    void failedCollectivesLeaveNothingBehind() {
        job(3, client -> {
            final Coll coll = Coll.of(client);
            final Team job = Team.job(client);
            final MemorySegment buf = Arena.ofAuto().allocate(64);
            callDifferently(coll, job, buf, client.rank());
            for (int k = 0; k < 4; k++) {
                coll.broadcastNb(job, k % job.size(), buf, buf, 8).await();
                coll.reduceToAllNb(job, buf, buf, AtomicType.INT64, 2, ReduceOp.MAX).await();
            }
            coll.barrier(job);
            final Map<String, Integer> nothing = Map.of("started", 0, "early", 0, "active", 0, "notices", 0,
                "queued", 0, "flow messages", 0);
            final long deadline = System.nanoTime() + 10_000_000_000L;
            Map<String, Integer> held = held(coll);
            while (!nothing.equals(held) && System.nanoTime() < deadline) {
                client.poll(); // notices still to send go out
                Thread.onSpinWait();
                held = held(coll);
            }
            assertEquals(nothing, held, "what rank " + client.rank() + "'s collectives still hold");
        });
    }

    /** {@code Coll.held()}: package-private, for tests only; null while another thread holds delivery. */
    @SuppressWarnings("unchecked")
    static Map<String, Integer> held(Coll coll) {
        try {
            final Method held = Coll.class.getDeclaredMethod("held");
            held.setAccessible(true);
            return (Map<String, Integer>) held.invoke(coll);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("Coll.held() is gone", e);
        }
    }

    /**
     * A rank that dies instead of joining a collective ends the others' waits with {@link PeerFailedException} naming
     * it (with gexrun, the job's output names it), as every wait of the client does.
     */
    @Test
    void aRankDyingInACollectiveEndsTheWaitNamingIt() {
        final AtomicReference<Throwable> waiter = new AtomicReference<>();
        final AssertionError jobError = assertThrows(AssertionError.class, () -> job(3, client -> {
            final Coll coll = Coll.of(client);
            final Team job = Team.job(client);
            final MemorySegment buf = Arena.ofAuto().allocate(4096);
            if (client.rank() == 1) {
                coll.barrier(job);
                throw new IllegalStateException("rank 1 dies before its broadcast");
            }
            try {
                // where the failure overtakes rank 1's barrier messages (ofi), it ends the barrier instead
                coll.barrier(job);
                coll.broadcastNb(job, 1, buf, null, 4096).await();
            } catch (Throwable t) {
                waiter.compareAndSet(null, t);
                throw t;
            }
        }));
        assertTrue(failedWith(jobError, IllegalStateException.class), String.valueOf(jobError));
        if (launchesProcesses() && launch() != Launch.MPIRUN) {
            assertTrue(jobError.getMessage().contains(PeerFailedException.class.getName() + ": rank 1 failed"),
                "the others name rank 1 as failed: " + jobError.getMessage());
        } else if (!launchesProcesses()) {
            final PeerFailedException failed = assertInstanceOf(PeerFailedException.class, waiter.get());
            assertEquals(1, failed.rank(), failed.getMessage());
        }
    }

    /**
     * A rank that closes its client while the others wait in a collective it never started (as a program that threw
     * out of its try-with-resources block does) ends their waits instead of waiting with them forever: they probe it
     * after {@code GEX_COLL_PROBE_MS} (here 100) of silence, its close answers with a failure naming it, and once they
     * close too, every close returns. At 2 and 3 ranks, with the closing rank's engine used before (a barrier) and
     * never used (only made), and with the wait a barrier and a broadcast from the closing rank.
     */
    @Test
    void aRankThatClosesEndsTheCollectivesWaitingForIt() {
        for (int n : new int[] {2, 3}) {
            for (boolean usedBefore : new boolean[] {true, false}) {
                job(n, Map.of("GEX_COLL_PROBE_MS", "100"), client -> {
                    final Coll coll = Coll.of(client);
                    final Team job = Team.job(client);
                    if (usedBefore) {
                        coll.barrier(job);
                    }
                    if (client.rank() == 0) {
                        client.close();
                        return;
                    }
                    final MemorySegment buf = Arena.ofAuto().allocate(64);
                    final Runnable wait = usedBefore ? () -> coll.barrier(job)
                        : () -> coll.broadcastNb(job, 0, buf, null, 64).await();
                    final GexException e = assertThrows(GexException.class, wait::run,
                        "rank " + client.rank() + " of " + n + " waited for rank 0, which closed");
                    assertMentions(e.getCause(), "team rank 0 closed its client");
                });
            }
        }
    }

    /**
     * A broadcast's root that runs more than the window (256 collectives) ahead of a member holds its further pieces
     * until the member answers how far it got; a member that closes its client never will. The root's held
     * collectives probe it once the window has been shut for {@code GEX_COLL_PROBE_MS} (here 100), and the closing
     * member answers each with a failure: the root's waits end, each with a completion or a failure naming it.
     */
    @Test
    void collectivesHeldByTheWindowOfAMemberThatClosesFail() {
        job(2, Map.of("GEX_COLL_PROBE_MS", "100"), client -> {
            final Coll coll = Coll.of(client);
            final Team job = Team.job(client);
            coll.barrier(job);
            if (client.rank() == 0) {
                client.close();
                return;
            }
            final MemorySegment buf = Arena.ofAuto().allocate(8);
            final Event[] events = new Event[600];
            for (int i = 0; i < events.length; i++) {
                events[i] = coll.broadcastNb(job, 1, buf, buf, 8);
            }
            int failed = 0;
            for (Event e : events) {
                try {
                    e.await();
                } catch (GexException x) {
                    assertMentions(x.getCause(), "team rank 0 closed its client");
                    failed++;
                }
            }
            assertTrue(failed >= events.length - 256, failed + " of " + events.length
                + " broadcasts failed");
        });
    }

    /**
     * A non-commutative operator ({@code GEX_OP_USER_NC}: 2x2 matrix products, wrapping) folds the members' values in
     * team rank order, {@code M0 x M1 x ... x M(n-1)}, at 2, 3 and 5 ranks: on the job team and on a team in reversed
     * job order, to all and to every root, flat (32 and 320 bytes) and binomial (6400 bytes, sources in the segment:
     * read in place on smp).
     */
    @Test
    void nonCommutativeOperatorsFoldInRankOrder() {
        final ReduceFunction product = ReduceFunction.nonCommutative(CollKit::matrixProducts);
        assertFalse(product.commutative());
        assertTrue(SUM_AND_MAX.commutative());
        for (int n : new int[] {2, 3, 5}) {
            job(n, client -> {
                final MemorySegment segment = client.attachSegment(1 << 16).memory();
                final Coll coll = Coll.of(client);
                final Team job = Team.job(client);
                final Team reversed = job.split(0, -client.rank());
                final MemorySegment dst = Arena.ofAuto().allocate(32 * 200);
                int step = 0;
                for (Team team : List.of(job, reversed)) {
                    for (int count : new int[] {1, 10, 200}) {
                        for (int root = -1; root < team.size(); root++) {
                            step++;
                            final MemorySegment src = segment.asSlice(8192L * (step % 3), 32L * count);
                            for (int i = 0; i < count; i++) {
                                matrix(client.rank(), step, i).put(src, i);
                            }
                            dst.fill((byte) 0);
                            (root < 0 ? coll.reduceToAllNb(team, dst, src, 32, count, product)
                                : coll.reduceToOneNb(team, root, dst, src, 32, count, product)).await();
                            if (root < 0 || root == team.rank()) {
                                for (int i = 0; i < count; i++) {
                                    Matrix expected = matrix(team.jobRank(0), step, i);
                                    for (int t = 1; t < team.size(); t++) {
                                        expected = expected.times(matrix(team.jobRank(t), step, i));
                                    }
                                    assertEquals(expected, Matrix.at(dst, i), (root < 0 ? "to all" : "to root "
                                        + root) + " on " + team + ", " + count + " elements, element " + i);
                                }
                            }
                            coll.barrier(team); // the sources are rewritten next step: none may be read after
                        }
                    }
                }
                reversed.close();
            });
        }
    }

    /** A 2x2 matrix of longs, multiplied modulo 2^64: associative, not commutative. */
    record Matrix(long a, long b, long c, long d) {
        Matrix times(Matrix o) {
            return new Matrix(a * o.a + b * o.c, a * o.b + b * o.d, c * o.a + d * o.c, c * o.b + d * o.d);
        }

        static Matrix at(MemorySegment m, long i) {
            return new Matrix(m.get(ValueLayout.JAVA_LONG_UNALIGNED, 32 * i), m.get(ValueLayout.JAVA_LONG_UNALIGNED,
                32 * i + 8), m.get(ValueLayout.JAVA_LONG_UNALIGNED, 32 * i + 16), m.get(ValueLayout.JAVA_LONG_UNALIGNED,
                32 * i + 24));
        }

        void put(MemorySegment m, long i) {
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, 32 * i, a);
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, 32 * i + 8, b);
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, 32 * i + 16, c);
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, 32 * i + 24, d);
        }
    }

    static Matrix matrix(int jobRank, int step, int i) {
        return new Matrix(1 + (jobRank * 7 + step * 3 + i) % 5, (jobRank + i) % 3 + step, (jobRank * 2 + step) % 4,
            1 + (jobRank + 2 * i) % 3 + jobRank);
    }

    /** {@code inOut[i] = in[i] x inOut[i]}: {@code in} holds the lower ranks' product. */
    static void matrixProducts(MemorySegment in, MemorySegment inOut, long count) {
        for (long i = 0; i < count; i++) {
            Matrix.at(in, i).times(Matrix.at(inOut, i)).put(inOut, i);
        }
    }

    /** Bad arguments throw, naming the value and the range, before anything is sent: the next collective works. */
    @Test
    void badInputIsRefusedBeforeAnythingIsSent() {
        job(2, client -> {
            final Coll coll = Coll.of(client);
            final Team job = Team.job(client);
            final MemorySegment buf = Arena.ofAuto().allocate(64);
            assertMentions(assertThrows(IllegalArgumentException.class, () -> coll.broadcastNb(job, 2, buf, buf, 8)),
                "root 2", "[0, 2)");
            assertMentions(assertThrows(IllegalArgumentException.class, () -> coll.broadcastNb(job, -1, buf, buf, 8)),
                "root -1");
            assertMentions(assertThrows(IllegalArgumentException.class, () -> coll.broadcastNb(job, 0, buf, buf, -1)),
                "nbytes -1");
            assertMentions(assertThrows(IllegalArgumentException.class, () -> coll.broadcastNb(job, 0, buf, buf, 65)),
                "holds 64 bytes");
            assertMentions(assertThrows(IllegalArgumentException.class, () -> coll.broadcastNb(job, 0, buf.asReadOnly(),
                buf, 8)), "read-only");
            assertMentions(assertThrows(IllegalArgumentException.class, () -> coll.reduceToAllNb(job, buf, buf,
                AtomicType.FLOAT64, 2, ReduceOp.XOR)), "XOR", "FLOAT64");
            assertMentions(assertThrows(IllegalArgumentException.class, () -> coll.reduceToAllNb(job, buf, buf, 0, 2,
                SUM_AND_MAX)), "elementSize 0");
            assertMentions(assertThrows(IllegalArgumentException.class, () -> coll.reduceToAllNb(job, buf, buf,
                AtomicType.INT64, 9, ReduceOp.ADD)), "fewer than the 72");
            final Arena closed = Arena.ofConfined();
            final MemorySegment gone = closed.allocate(64);
            closed.close();
            assertMentions(assertThrows(IllegalArgumentException.class, () -> coll.reduceToAllNb(job, gone, buf,
                AtomicType.INT64, 1, ReduceOp.ADD)), "closed");
            assertMentions(assertThrows(IllegalArgumentException.class, () -> job.split(-2, 0)), "color -2");
            assertMentions(assertThrows(IllegalArgumentException.class, () -> job.create(1 - client.rank())),
                "leave out this rank");
            assertMentions(assertThrows(IllegalArgumentException.class, () -> job.create(0, 1, 0)), "listed twice");
            assertMentions(assertThrows(IllegalArgumentException.class, () -> job.create(0, 2)), "member 2");
            assertMentions(assertThrows(IllegalArgumentException.class, () -> job.jobRank(2)), "team rank 2");
            assertMentions(assertThrows(IllegalArgumentException.class, () -> job.teamRank(-1)), "job rank -1");
            assertThrows(IllegalStateException.class, job::close);
            final Team all = job.split(0, -client.rank());
            assertEquals(1 - client.rank(), all.rank(), "keys reverse the order");
            all.close();
            assertMentions(assertThrows(IllegalStateException.class, () -> coll.barrierNb(all)), "closed");
            // nothing was sent: the members are still in step
            final MemorySegment src = MemorySegment.ofArray(new long[] {client.rank() + 1});
            final MemorySegment sum = MemorySegment.ofArray(new long[1]);
            coll.reduceToAllNb(job, sum, src, AtomicType.INT64, 1, ReduceOp.ADD).await();
            assertEquals(3, sum.get(ValueLayout.JAVA_LONG, 0));
        });
    }

    /**
     * Collectives in step allocate nothing on their callers' threads once warm: barriers, broadcasts (flat, 8 bytes,
     * and binomial, 8 KiB), reductions to one root (which takes the pieces that come before it starts) and to all,
     * blocking and four in flight, at 2 and 3 ranks. Each rank measures its own thread, which runs its handlers and
     * its collectives' progress, in {@link #WINDOWS} windows and keeps the least (the JVM's own one-time work shows in
     * one window only).
     */
    @Test
    void collectivesInStepAllocateNothingOnceWarm() {
        for (int ranks = 2; ranks <= 3; ranks++) {
            job(ranks, client -> {
                final Coll coll = Coll.of(client);
                final Team job = Team.job(client);
                final MemorySegment src = Arena.ofAuto().allocate(8192, 8);
                final MemorySegment dst = Arena.ofAuto().allocate(8192, 8);
                final Event[] inFlight = new Event[4];
                final MemorySegment[] slices = new MemorySegment[2 * inFlight.length]; // asSlice allocates
                for (int k = 0; k < inFlight.length; k++) {
                    slices[2 * k] = src.asSlice(64L * k, 64);
                    slices[2 * k + 1] = dst.asSlice(64L * k, 64);
                }
                for (int i = 0; i < WARM_ITERATIONS; i++) {
                    collectivesInStep(coll, job, src, dst, slices, inFlight, i);
                }
                final long[] windows = new long[WINDOWS];
                for (int w = 0; w < WINDOWS; w++) {
                    final long before = AllocationMeasureKit.allocatedBytes();
                    for (int i = 0; i < WINDOW_ITERATIONS; i++) {
                        collectivesInStep(coll, job, src, dst, slices, inFlight, i);
                    }
                    windows[w] = AllocationMeasureKit.allocatedBytes() - before;
                }
                assertEquals(0, Arrays.stream(windows).min().orElseThrow(), "rank " + client.rank()
                    + " of " + job.size() + " allocated in every window of " + WINDOW_ITERATIONS
                    + " rounds of 9 collectives (bytes by window): " + Arrays.toString(windows));
                src.set(ValueLayout.JAVA_LONG, 0, client.rank() + 1);
                coll.reduceToAllNb(job, dst, src, AtomicType.INT64, 1, ReduceOp.ADD).await();
                assertEquals((long) job.size() * (job.size() + 1) / 2, dst.get(ValueLayout.JAVA_LONG, 0));
            });
        }
    }

    /**
     * A flat reduce-to-one's leaf has only its source to send: once sent, the collective is done where it returns
     * ({@link Event#DONE}, GASNet-EX's invalid event), and the root still gets every member's value (the tree's root,
     * the root or team rank 0 for a non-commutative operator, is done at return only where every value came first).
     * At 2 and 3 ranks, every root, ranks in step (a barrier before each).
     */
    @Test
    void aFlatReduceToOnesLeafIsDoneWhenItReturns() {
        for (int ranks = 2; ranks <= 3; ranks++) {
            job(ranks, client -> {
                final Coll coll = Coll.of(client);
                final Team job = Team.job(client);
                final int n = job.size();
                final MemorySegment src = Arena.ofAuto().allocate(64, 8);
                final MemorySegment dst = Arena.ofAuto().allocate(64, 8);
                coll.barrier(job); // the team's first collective here takes the operation's way
                for (int round = 0; round < 6; round++) {
                    final int root = round % n;
                    final boolean inOrder = round >= 3;
                    src.set(ValueLayout.JAVA_LONG, 0, job.rank() + 1L);
                    coll.barrier(job);
                    final Event e = inOrder
                        ? coll.reduceToOneNb(job, root, dst, src, 8, 1, ReduceFunction.nonCommutative(
                            (in, io, count) -> io.set(ValueLayout.JAVA_LONG, 0, io.get(ValueLayout.JAVA_LONG, 0)
                                + in.get(ValueLayout.JAVA_LONG, 0))))
                        : coll.reduceToOneNb(job, root, dst, src, AtomicType.INT64, 1, ReduceOp.ADD);
                    if (job.rank() != root && job.rank() != (inOrder ? 0 : root)) {
                        assertTrue(e == Event.DONE, "rank " + job.rank() + ", root " + root
                            + (inOrder ? ", in rank order" : "") + ": a leaf, done at return");
                    }
                    e.await();
                    if (job.rank() == root) {
                        assertEquals((long) n * (n + 1) / 2, dst.get(ValueLayout.JAVA_LONG, 0), "round " + round);
                    }
                }
            });
        }
    }

    private static void collectivesInStep(Coll coll, Team job, MemorySegment src, MemorySegment dst,
                                          MemorySegment[] slices, Event[] inFlight, int i) {
        final int root = i % job.size();
        coll.barrier(job);
        coll.broadcastNb(job, root, dst, src, 8).await();
        coll.broadcastNb(job, root, dst, src, 8192).await();
        coll.reduceToOneNb(job, root, dst, src, AtomicType.INT32, 4, ReduceOp.ADD).await();
        coll.reduceToAllNb(job, dst, src, AtomicType.INT64, 1024, ReduceOp.ADD).await();
        for (int k = 0; k < inFlight.length; k++) {
            inFlight[k] = coll.reduceToAllNb(job, slices[2 * k + 1], slices[2 * k], AtomicType.INT64, 8,
                ReduceOp.MAX);
        }
        for (int k = 0; k < inFlight.length; k++) {
            inFlight[k].await();
            inFlight[k] = null;
        }
    }

    /**
     * Two threads of each rank issue collectives at once, each on a team of its own (a team's collectives keep one
     * order; different teams' need none), while a third thread polls: a caller that finds the delivery free starts its
     * collective at once, one that finds it held queues it, and both ways give every result, at 2 and 3 ranks.
     */
    @Test
    void threadsIssueCollectivesOnTheirOwnTeamsWhileAnotherPolls() {
        for (int ranks = 2; ranks <= 3; ranks++) {
            job(ranks, client -> {
                final Coll coll = Coll.of(client);
                final Team job = Team.job(client);
                final Team sums = job.split(0, client.rank());
                final Team casts = job.split(0, -client.rank());
                final int n = job.size();
                final int rounds = 400;
                final AtomicBoolean done = new AtomicBoolean();
                final Thread poller = Thread.ofPlatform().name("poller-" + client.rank()).start(() -> {
                    while (!done.get()) {
                        client.poll();
                    }
                });
                final AtomicReference<Throwable> castFailure = new AtomicReference<>();
                final Thread caster = Thread.ofPlatform().name("caster-" + client.rank()).start(() -> {
                    try {
                        final MemorySegment buf = Arena.ofAuto().allocate(8);
                        for (int i = 0; i < rounds; i++) {
                            final int root = i % n;
                            buf.set(ValueLayout.JAVA_LONG, 0, casts.rank() == root ? 1000L * i + root : -1);
                            coll.broadcastNb(casts, root, buf, buf, 8).await();
                            assertEquals(1000L * i + root, buf.get(ValueLayout.JAVA_LONG, 0), "broadcast " + i);
                        }
                    } catch (Throwable t) {
                        castFailure.set(t);
                    }
                });
                try {
                    final MemorySegment src = Arena.ofAuto().allocate(8);
                    final MemorySegment dst = Arena.ofAuto().allocate(8);
                    for (int i = 0; i < rounds; i++) {
                        src.set(ValueLayout.JAVA_LONG, 0, (long) (sums.rank() + 1) * i);
                        coll.reduceToAllNb(sums, dst, src, AtomicType.INT64, 1, ReduceOp.ADD).await();
                        assertEquals((long) n * (n + 1) / 2 * i, dst.get(ValueLayout.JAVA_LONG, 0), "sum " + i);
                    }
                    caster.join();
                } finally {
                    done.set(true);
                    poller.join();
                }
                assertNull(castFailure.get(), "the casting thread of rank " + client.rank());
                coll.barrier(job);
            });
        }
    }

    static void assertMentions(Throwable e, String... words) {
        for (String w : words) {
            assertTrue(String.valueOf(e.getMessage()).contains(w), "'" + e.getMessage() + "' does not mention " + w);
        }
    }
}
