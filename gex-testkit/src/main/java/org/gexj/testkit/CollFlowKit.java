package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.GexException;
import org.gexj.coll.Coll;
import org.gexj.coll.ReduceFunction;
import org.gexj.coll.ReduceOp;
import org.gexj.coll.Team;
import org.gexj.rma.AtomicType;
import org.gexj.testkit.CollKit.Matrix;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The collectives' flow control on every conduit: a rank whose collectives need nothing from a member (a
 * reduce-to-one's leaf, a broadcast's root) runs at most a window of collectives ahead of it, so that the member keeps
 * pieces for that many and no more; and programs whose members issue the same collectives with different amounts of
 * non-blocking overlap, as GASNet-EX allows, complete.
 */
public abstract class CollFlowKit extends ConduitKit {
    /** {@code CollFlow.WINDOW}: collectives of a team a rank runs ahead of a member, at most. */
    private static final int WINDOW = 256;
    private static final int AHEAD = 5 * WINDOW;

    /**
     * Rank 0 issues {@link #AHEAD} reduce-to-ones to rank 1, then broadcasts from itself, non-blocking, while rank 1
     * only polls: rank 0's reduce-to-ones complete as far as the window and no further, and rank 1 keeps the pieces
     * of exactly a window of collectives (rank 1 polls until rank 0 has counted). Then rank 1 issues its calls, and
     * every result is right.
     */
    @Test
    void aRankRunningAheadIsHeldToAWindow() {
        exactJob(2, client -> {
            final Coll coll = Coll.of(client);
            final Team job = Team.job(client);
            final boolean ahead = client.rank() == 0;
            final MemorySegment src = Arena.ofAuto().allocate(8L * AHEAD);
            final MemorySegment dst = Arena.ofAuto().allocate(8L * AHEAD);
            final MemorySegment got = Arena.ofAuto().allocate(8L * AHEAD);
            for (int i = 0; i < AHEAD; i++) {
                src.setAtIndex(ValueLayout.JAVA_LONG, i, (client.rank() + 1L) * 1000 + i);
            }
            final Event[] events = new Event[2 * AHEAD];
            if (ahead) {
                issue(coll, job, events, src, dst, got);
                pollAWhile(client, 300);
                int done = 0;
                for (int i = 0; i < AHEAD && events[i].test(); i++) {
                    events[i] = null;
                    done++;
                }
                assertEquals(WINDOW, done, "reduce-to-ones done at the leaf while the root started none");
                signals().post("counted", done);
            } else {
                final long end = System.nanoTime() + 60_000_000_000L;
                while (!signals().posted("counted") && System.nanoTime() < end) {
                    client.poll(); // takes the leaf's pieces and its ask, and starts nothing
                }
                Map<String, Integer> held;
                while ((held = CollKit.held(coll)) == null) {
                    Thread.onSpinWait(); // another thread holds the delivery for a moment
                }
                assertEquals(WINDOW, held.get("early"), "collectives the root keeps pieces for");
                issue(coll, job, events, src, dst, got);
            }
            for (Event e : events) {
                if (e != null) {
                    e.await();
                }
            }
            for (int i = 0; i < AHEAD; i++) {
                if (!ahead) {
                    assertEquals(1000 + i + 2000 + i, dst.getAtIndex(ValueLayout.JAVA_LONG, i), "reduce-to-one " + i);
                }
                assertEquals(1000 + i, got.getAtIndex(ValueLayout.JAVA_LONG, i), "broadcast " + i);
            }
        });
    }

    /**
     * A reduce-to-one's root whose members' values all came before its calls (3 ranks, the leaves run ahead while the
     * root only polls) folds them as the operator requires: a non-commutative one in team rank order, a sum of every
     * member's value; and where the reduction function throws at the root, that collective fails there naming it, and
     * the team's next collectives work.
     */
    @Test
    void aRootFoldsValuesThatCameBeforeItsCalls() {
        final int early = 64;
        exactJob(3, client -> {
            final Coll coll = Coll.of(client);
            final Team job = Team.job(client);
            final ReduceFunction product = ReduceFunction.nonCommutative(CollKit::matrixProducts);
            final ReduceFunction throwsAtRoot = (in, inOut, count) -> {
                throw new IllegalStateException("refused by rank " + client.rank());
            };
            final MemorySegment src = Arena.ofAuto().allocate(32L * early);
            final MemorySegment sums = Arena.ofAuto().allocate(8L * early);
            final MemorySegment dst = Arena.ofAuto().allocate(32L * early);
            final MemorySegment sumDst = Arena.ofAuto().allocate(8L * early);
            for (int i = 0; i < early; i++) {
                CollKit.matrix(client.rank(), 7, i).put(src, i);
                sums.setAtIndex(ValueLayout.JAVA_LONG, i, (client.rank() + 1L) * 1000 + i);
            }
            final Event[] events = new Event[2 * early + 1];
            if (client.rank() != 0) {
                issueToRoot0(coll, job, events, early, product, throwsAtRoot, src, dst, sums, sumDst);
                signals().post("sent-by-" + client.rank(), 1);
            } else {
                keepLeavesPieces(client, coll, events.length, System.nanoTime() + 60_000_000_000L);
                issueToRoot0(coll, job, events, early, product, throwsAtRoot, src, dst, sums, sumDst);
            }
            for (int i = 0; i < 2 * early; i++) {
                events[i].await();
            }
            if (client.rank() == 0) {
                final GexException failed = assertThrows(GexException.class, events[2 * early]::await);
                final String told = failed + " / " + failed.getCause();
                assertTrue(told.contains("refused by rank 0"), "the failure names the function's exception: " + told);
                for (int i = 0; i < early; i++) {
                    final Matrix expected = CollKit.matrix(0, 7, i).times(CollKit.matrix(1, 7, i))
                        .times(CollKit.matrix(2, 7, i));
                    assertEquals(expected, Matrix.at(dst, i), "non-commutative reduce-to-one " + i);
                    assertEquals(6000L + 3 * i, sumDst.getAtIndex(ValueLayout.JAVA_LONG, i), "sum " + i);
                }
            } else {
                events[2 * early].await(); // done at the leaf, which only sent its value
            }
            nextCollectiveWorks(coll, job);
        });
    }

    /**
     * A broadcast's leaves whose root's data all came before their calls (3 ranks, the root runs ahead while the
     * leaves only poll) copy it into their results; a broadcast of no bytes among them; the root's result is its
     * source; and the team's next collective works.
     */
    @Test
    void leavesTakeDataThatCameBeforeTheirCalls() {
        final int early = 100;
        exactJob(3, client -> {
            final Coll coll = Coll.of(client);
            final Team job = Team.job(client);
            final MemorySegment src = Arena.ofAuto().allocate(16L * early);
            final MemorySegment dst = Arena.ofAuto().allocate(16L * early);
            for (int i = 0; i < 2 * early; i++) {
                src.setAtIndex(ValueLayout.JAVA_LONG, i, client.rank() == 0 ? 0x7100_0000_0000_0000L + i : -1);
            }
            final Event[] events = new Event[early];
            if (client.rank() == 0) {
                broadcastFrom0(coll, job, events, src, dst);
                signals().post("root-sent", 1);
            } else {
                final long end = System.nanoTime() + 60_000_000_000L;
                while (!signals().posted("root-sent") && System.nanoTime() < end) {
                    client.poll();
                }
                Map<String, Integer> held;
                while ((held = CollKit.held(coll)) == null || held.get("early") < early) {
                    client.poll(); // pieces still in flight (udp, ofi)
                    if (System.nanoTime() > end) {
                        throw new AssertionError("the leaf keeps pieces for " + held + " of " + early);
                    }
                }
                broadcastFrom0(coll, job, events, src, dst);
            }
            for (Event e : events) {
                e.await();
            }
            for (int i = 0; i < 2 * early; i++) {
                final long expected = i == early ? -2 : i == early + 1 ? 0 : 0x7100_0000_0000_0000L + i;
                assertEquals(expected, dst.getAtIndex(ValueLayout.JAVA_LONG, i), "broadcast " + i / 2 + ", word " + i);
            }
            nextCollectiveWorks(coll, job);
        });
    }

    /**
     * A reduce-to-all's root whose leaves' values all came before its calls (3 ranks, the leaves run ahead while the
     * root only polls) folds them and sends the results down; the leaves do not poll while it does, so its sends may
     * fill their paths (1.5 KiB sums past smp's 128 KiB window) and the collectives whose sends could not all go
     * finish in the polls. Every member gets every non-commutative product M0 x M1 x M2 and every sum; a reduction
     * whose function throws at the root fails there, naming the exception, and at the leaves; the team's next
     * collective works.
     */
    @Test
    void aReduceToAllsRootFoldsAndSendsDownInItsCall() {
        final int early = 100;
        final int longs = 192;
        exactJob(3, client -> {
            final Coll coll = Coll.of(client);
            final Team job = Team.job(client);
            final ReduceFunction product = ReduceFunction.nonCommutative(CollKit::matrixProducts);
            final ReduceFunction throwsAtRoot = (in, inOut, count) -> {
                throw new IllegalStateException("refused by rank " + client.rank());
            };
            final MemorySegment src = Arena.ofAuto().allocate(32L * early);
            final MemorySegment dst = Arena.ofAuto().allocate(32L * early);
            final MemorySegment sums = Arena.ofAuto().allocate(8L * longs * early);
            final MemorySegment sumDst = Arena.ofAuto().allocate(8L * longs * early);
            for (int i = 0; i < early; i++) {
                CollKit.matrix(client.rank(), 7, i).put(src, i);
            }
            for (int i = 0; i < longs * early; i++) {
                sums.setAtIndex(ValueLayout.JAVA_LONG, i, (client.rank() + 1L) * 1_000_000 + i);
            }
            final Event[] events = new Event[2 * early + 1];
            final long end = System.nanoTime() + 60_000_000_000L;
            if (client.rank() != 0) {
                issueToAll(coll, job, events, early, longs, product, throwsAtRoot, src, dst, sums, sumDst);
                signals().post("sent-by-" + client.rank(), 1);
                while (!signals().posted("root-holds-all") && System.nanoTime() < end) {
                    client.poll(); // this rank's sends go on
                }
                while (!signals().posted("root-issued") && System.nanoTime() < end) {
                    LockSupport.parkNanos(1_000_000); // not polling: the root's sends down fill this rank's paths
                }
            } else {
                keepLeavesPieces(client, coll, events.length, end);
                signals().post("root-holds-all", 1);
                LockSupport.parkNanos(50_000_000); // the leaves stop polling
                issueToAll(coll, job, events, early, longs, product, throwsAtRoot, src, dst, sums, sumDst);
                signals().post("root-issued", 1);
            }
            for (int i = 0; i < 2 * early; i++) {
                events[i].await();
            }
            final GexException failed = assertThrows(GexException.class, events[2 * early]::await);
            if (client.rank() == 0) {
                final String told = failed + " / " + failed.getCause();
                assertTrue(told.contains("refused by rank 0"), "the failure names the function's exception: " + told);
            }
            for (int i = 0; i < early; i++) {
                final Matrix expected = CollKit.matrix(0, 7, i).times(CollKit.matrix(1, 7, i))
                    .times(CollKit.matrix(2, 7, i));
                assertEquals(expected, Matrix.at(dst, i), "non-commutative reduce-to-all " + i);
            }
            for (int i = 0; i < longs * early; i++) {
                assertEquals(6_000_000L + 3L * i, sumDst.getAtIndex(ValueLayout.JAVA_LONG, i), "sum word " + i);
            }
            nextCollectiveWorks(coll, job);
        });
    }

    /**
     * {@code early} non-commutative products and as many sums of {@code longs} words, alternating, then one that
     * throws at the root.
     */
    private static void issueToAll(Coll coll, Team job, Event[] events, int early, int longs, ReduceFunction product,
                                   ReduceFunction throwsAtRoot, MemorySegment src, MemorySegment dst,
                                   MemorySegment sums, MemorySegment sumDst) {
        final long bytes = 8L * longs;
        for (int i = 0; i < early; i++) {
            events[2 * i] = coll.reduceToAllNb(job, dst.asSlice(32L * i, 32), src.asSlice(32L * i, 32), 32, 1,
                product);
            events[2 * i + 1] = coll.reduceToAllNb(job, sumDst.asSlice(bytes * i, bytes),
                sums.asSlice(bytes * i, bytes), AtomicType.INT64, longs, ReduceOp.ADD);
        }
        events[2 * early] = coll.reduceToAllNb(job, Arena.ofAuto().allocate(8), sums.asSlice(0, 8), 8, 1,
            throwsAtRoot);
    }

    /**
     * The root's wait in the tests whose leaves run ahead: polls until ranks 1 and 2 have posted that they sent, then
     * until this rank keeps pieces for {@code count} collectives, then a little longer for pieces in parts.
     */
    private void keepLeavesPieces(Client client, Coll coll, int count, long end) {
        while (!(signals().posted("sent-by-1") && signals().posted("sent-by-2")) && System.nanoTime() < end) {
            client.poll();
        }
        Map<String, Integer> held;
        while ((held = CollKit.held(coll)) == null || held.get("early") < count) {
            client.poll(); // pieces still in flight (udp, ofi)
            if (System.nanoTime() > end) {
                throw new AssertionError("the root keeps pieces for " + held + " of " + count);
            }
        }
        pollAWhile(client, 20); // the last collectives' second pieces
    }

    /** {@code events.length} broadcasts from rank 0 of 16 bytes each, but one of none in the middle. */
    private static void broadcastFrom0(Coll coll, Team job, Event[] events, MemorySegment src, MemorySegment dst) {
        for (int i = 0; i < events.length; i++) {
            if (i == events.length / 2) {
                dst.setAtIndex(ValueLayout.JAVA_LONG, 2 * i, -2); // a broadcast of no bytes leaves it
                events[i] = coll.broadcastNb(job, 0, dst.asSlice(16L * i, 0), src.asSlice(16L * i, 0), 0);
            } else {
                events[i] = coll.broadcastNb(job, 0, dst.asSlice(16L * i, 16), src.asSlice(16L * i, 16), 16);
            }
        }
    }

    /** A reduce-to-all of every member's team rank: the team still works after what came before. */
    private static void nextCollectiveWorks(Coll coll, Team team) {
        final MemorySegment one = Arena.ofAuto().allocate(8);
        one.set(ValueLayout.JAVA_LONG, 0, team.rank());
        coll.reduceToAllNb(team, one, one, AtomicType.INT64, 1, ReduceOp.ADD).await();
        final long n = team.size();
        assertEquals(n * (n - 1) / 2, one.get(ValueLayout.JAVA_LONG, 0), "the team's next collective");
    }

    /** To root 0: {@code early} non-commutative products and as many sums, alternating, then one that throws there. */
    private static void issueToRoot0(Coll coll, Team job, Event[] events, int early, ReduceFunction product,
                                     ReduceFunction throwsAtRoot, MemorySegment src, MemorySegment dst,
                                     MemorySegment sums, MemorySegment sumDst) {
        for (int i = 0; i < early; i++) {
            events[2 * i] = coll.reduceToOneNb(job, 0, dst.asSlice(32L * i, 32), src.asSlice(32L * i, 32), 32, 1,
                product);
            events[2 * i + 1] = coll.reduceToOneNb(job, 0, sumDst.asSlice(8L * i, 8), sums.asSlice(8L * i, 8),
                AtomicType.INT64, 1, ReduceOp.ADD);
        }
        // into a buffer of its own: the root's result is written before the function throws
        events[2 * early] = coll.reduceToOneNb(job, 0, Arena.ofAuto().allocate(8), sums.asSlice(0, 8), 8, 1,
            throwsAtRoot);
    }

    /** {@link #AHEAD} reduce-to-ones to rank 1 (into dst), then as many broadcasts from rank 0 (into got). */
    private static void issue(Coll coll, Team job, Event[] events, MemorySegment src, MemorySegment dst,
                              MemorySegment got) {
        for (int i = 0; i < AHEAD; i++) {
            events[i] = coll.reduceToOneNb(job, 1, dst.asSlice(8L * i, 8), src.asSlice(8L * i, 8), AtomicType.INT64, 1,
                ReduceOp.ADD);
        }
        for (int i = 0; i < AHEAD; i++) {
            events[AHEAD + i] = coll.broadcastNb(job, 0, got.asSlice(8L * i, 8), src.asSlice(8L * i, 8), 8);
        }
    }

    /**
     * Members issue the same mixed collectives, several windows of them, with different overlap: rank 0 issues them
     * all before waiting for any, rank 1 waits for each before the next, the others wait in a random order after
     * random batches, and ranks pause at random. GASNet-EX allows this (as blocking barriers they would not deadlock),
     * so it completes, with every result right, at 2 and 3 ranks; on a split team too, whose first collectives come
     * before some members have started any collective on it.
     */
    @Test
    void membersOverlappingDifferentlyAllComplete() {
        for (int ranks = 2; ranks <= 3; ranks++) {
            exactJob(ranks, client -> {
                final Coll coll = Coll.of(client);
                final Team job = Team.job(client);
                final Team half = job.split(job.rank() < 2 ? 0 : 1, job.rank()); // ranks 0 and 1 together
                if (client.rank() == 1) {
                    pollAWhile(client, 100); // the others' first pieces and asks come before this rank's first call
                }
                run(client, coll, half, new Random(seed() + client.rank()));
                run(client, coll, job, new Random(seed() * 31 + client.rank()));
                half.close();
            });
        }
    }

    private static void run(Client client, Coll coll, Team team, Random random) {
        final int count = 3 * WINDOW;
        final int n = team.size();
        final MemorySegment src = Arena.ofAuto().allocate(8L * count);
        final MemorySegment dst = Arena.ofAuto().allocate(8L * count);
        for (int i = 0; i < count; i++) {
            src.setAtIndex(ValueLayout.JAVA_LONG, i, team.rank() * 100_000L + i);
        }
        final Event[] events = new Event[count];
        final int me = client.rank();
        int awaited = 0;
        for (int i = 0; i < count; i++) {
            final MemorySegment d = dst.asSlice(8L * i, 8);
            final MemorySegment s = src.asSlice(8L * i, 8);
            events[i] = switch (i % 4) {
                case 0 -> coll.reduceToOneNb(team, (i / 4) % n, d, s, AtomicType.INT64, 1, ReduceOp.ADD);
                case 1 -> coll.broadcastNb(team, (i / 4) % n, d, s, 8);
                case 2 -> coll.reduceToAllNb(team, d, s, AtomicType.INT64, 1, ReduceOp.MAX);
                default -> coll.barrierNb(team);
            };
            if (me == 1) {
                events[i].await();
                awaited = i + 1;
            } else if (me > 1 && random.nextInt(8) == 0) {
                for (int k = i; k >= awaited; k--) { // newest first
                    events[k].await();
                }
                awaited = i + 1;
            }
            if (random.nextInt(32) == 0) {
                pollAWhile(client, 2);
            }
        }
        for (int i = awaited; i < count; i++) {
            events[i].await();
        }
        for (int i = 0; i < count; i++) {
            final int root = (i / 4) % n;
            final long got = dst.getAtIndex(ValueLayout.JAVA_LONG, i);
            switch (i % 4) {
                case 0 -> {
                    if (team.rank() == root) {
                        assertEquals(100_000L * n * (n - 1) / 2 + (long) n * i, got, "reduce-to-one " + i);
                    }
                }
                case 1 -> assertEquals(root * 100_000L + i, got, "broadcast " + i);
                case 2 -> assertEquals((n - 1) * 100_000L + i, got, "reduce-to-all " + i);
                default -> {
                    // a barrier has no result; that it completed is the check
                }
            }
        }
    }
}
