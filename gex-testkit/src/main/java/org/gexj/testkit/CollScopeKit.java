package org.gexj.testkit;

import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.TeamAm;
import org.gexj.coll.Coll;
import org.gexj.coll.ReduceOp;
import org.gexj.coll.Team;
import org.gexj.coll.TeamAtomicDomain;
import org.gexj.coll.TeamRma;
import org.gexj.coll.TeamVis;
import org.gexj.rma.AtomicOp;
import org.gexj.rma.AtomicType;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;

import static org.gexj.testkit.CollKit.assertMentions;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a team scopes besides its collectives, on every conduit: AM, RMA, atomic domains and VIS addressed by team
 * rank, reductions that read sources in the segment in place (smp), and teams of one rank, whose collectives are
 * done at the call. The collectives themselves are {@link CollKit}'s, their flow control {@link CollFlowKit}'s.
 */
public abstract class CollScopeKit extends ConduitKit {
    /**
     * AM and RMA by team rank ({@code gex_AM_Request*(tm, rank)}, {@code gex_RMA_*(tm, rank)}): on a team of the odd or
     * the even ranks in reverse order, every member sends a Short, a Medium and a Long to every team rank and puts
     * into and gets from every team rank's segment; each lands at the job rank the team names, and handlers see the
     * sender's job rank. A rank outside the team is refused naming it and the range, and nothing is sent.
     */
    @Test
    void amAndRmaTakeTeamRanks() {
        job(5, client -> {
            final MemorySegment mine = client.attachSegment(64 * 1024).memory();
            mine.fill((byte) 0);
            final Am am = Am.of(client);
            final int me = client.rank();
            final Team team = Team.job(client).split(me % 2, -me);
            final List<String> got = Collections.synchronizedList(new ArrayList<>());
            final int h = am.register(AmHandler.shortRequest(1, (t, a) -> got.add("short " + t.sourceRank() + " "
                + a.get(0))));
            final int hm = am.register(AmHandler.mediumRequest(1, (t, p, a) -> got.add("medium " + t.sourceRank()
                + " " + a.get(0) + " " + p.getLong(0))));
            final int hl = am.register(AmHandler.longRequest(1, (t, p, a) -> got.add("long " + t.sourceRank() + " "
                + a.get(0) + " " + p.getLong(0))));
            client.barrier();
            final TeamAm tam = team.am();
            final TeamRma trma = team.rma();
            assertEquals(team.size(), tam.size());
            final MemorySegment value = Arena.ofAuto().allocate(8);
            value.set(ValueLayout.JAVA_LONG, 0, 1000 + me);
            for (int r = 0; r < team.size(); r++) {
                tam.requestShort(r, h, r);
                tam.requestMedium(r, hm, value, 0, 8, Lc.NOW, r);
                tam.requestLong(r, hl, value, 0, 8, 1024L + 8L * team.rank(), Lc.NOW, r);
                trma.putVal(r, 8L * team.rank(), me, 8);
            }
            final Coll coll = Coll.of(client);
            coll.barrier(team);
            final long deadline = System.nanoTime() + 30_000_000_000L;
            while (got.size() < 3 * team.size() && System.nanoTime() < deadline) {
                client.poll();
            }
            coll.barrier(team);
            final List<String> expected = new ArrayList<>();
            for (int r = 0; r < team.size(); r++) {
                final int from = team.jobRank(r);
                expected.add("short " + from + " " + team.rank());
                expected.add("medium " + from + " " + team.rank() + " " + (1000 + from));
                expected.add("long " + from + " " + team.rank() + " " + (1000 + from));
                assertEquals(from, mine.get(ValueLayout.JAVA_LONG, 8L * r), "the put of team rank " + r);
                assertEquals(1000 + from, mine.get(ValueLayout.JAVA_LONG, 1024L + 8L * r),
                    "the Long of team rank " + r);
                assertEquals(team.jobRank(team.rank()), trma.getVal(r, 8L * team.rank(), 8),
                    "what this rank put at team rank " + r);
            }
            final List<String> seen = new ArrayList<>(got);
            Collections.sort(seen);
            Collections.sort(expected);
            assertEquals(expected, seen, "what the handlers saw");
            final int outside = team.size();
            assertMentions(assertThrows(IllegalArgumentException.class, () -> tam.requestShort(outside, h, 0)),
                "team rank " + outside, "[0, " + outside + ")");
            assertMentions(assertThrows(IllegalArgumentException.class, () -> tam.requestMedium(-1, hm, value, 0, 8,
                Lc.NOW, 0)), "team rank -1");
            assertMentions(assertThrows(IllegalArgumentException.class, () -> tam.maxRequestMedium(outside, 0)),
                "team rank " + outside);
            assertMentions(assertThrows(IllegalArgumentException.class, () -> trma.put(outside, 0, value, 0, 8)),
                "team rank " + outside);
            assertMentions(assertThrows(IllegalArgumentException.class, () -> trma.getVal(-1, 0, 8)), "team rank -1");
            assertEquals(am.maxRequestMedium(-1, 1), tam.maxRequestMedium(-1, 1));
            // nothing was sent: after the team's barrier no handler ran again, no segment changed
            coll.barrier(team);
            for (int i = 0; i < 100; i++) {
                client.poll();
            }
            coll.barrier(team);
            assertEquals(3 * team.size(), got.size(), "handlers that ran: " + got);
            team.close();
            client.barrier();
        });
    }

    /**
     * Atomic domains and VIS by team rank ({@code gex_AD_Create(&ad, tm, ...)}, {@code gex_VIS_*(tm, rank)}): on a team
     * of the odd or the even ranks in reverse order, every member adds to a counter at every team rank (blocking, NB
     * and NBI, integer and floating point), and puts its values into every team rank's segment with indexed, strided
     * and vector puts, then reads them back with the gets. Each lands at the job rank the team names. A rank outside
     * the team is refused naming it and the range, and nothing moves; a closed team makes no domain.
     */
    @Test
    void atomicsAndVisTakeTeamRanks() {
        job(5, client -> {
            final MemorySegment mine = client.attachSegment(64 * 1024).memory();
            mine.fill((byte) 0);
            final int me = client.rank();
            final Team team = Team.job(client).split(me % 2, -me);
            final TeamAtomicDomain longs = team.atomicDomain(AtomicType.INT64, EnumSet.of(AtomicOp.ADD,
                AtomicOp.FADD), 0);
            final TeamAtomicDomain doubles = team.atomicDomain(AtomicType.FLOAT64, EnumSet.of(AtomicOp.FADD), 0);
            assertSame(team, longs.team());
            assertEquals(AtomicType.INT64, longs.type());
            assertEquals(EnumSet.of(AtomicOp.ADD, AtomicOp.FADD), longs.ops());
            final TeamVis vis = team.vis();
            assertSame(vis, team.vis());
            final MemorySegment result = Arena.ofAuto().allocate(64);
            final MemorySegment values = Arena.ofAuto().allocate(64);
            for (int i = 0; i < 4; i++) {
                values.setAtIndex(ValueLayout.JAVA_LONG, i, 100L * me + i);
            }
            final long slot = 64L * team.rank(); // where this rank's values go in each member's segment
            client.barrier();
            for (int r = 0; r < team.size(); r++) {
                final long old = longs.opLong(r, 0, AtomicOp.FADD, 1 + me, 0, 0);
                assertTrue(old >= 0, "team rank " + r + "'s counter before this rank's add: " + old);
                longs.opLongNb(result, 0, r, 0, AtomicOp.ADD, 1000L * (1 + me), 0, 0).await();
                longs.opLongNbi(result, 0, r, 0, AtomicOp.FADD, 1_000_000L * (1 + me), 0, 0);
                doubles.opDoubleNb(result, 8, r, 8, AtomicOp.FADD, 0.5, 0, 0).await();
                doubles.opDoubleNbi(result, 8, r, 8, AtomicOp.FADD, 0.25, 0, 0);
                vis.putIndexed(r, 2, new long[] {1024 + slot, 1024 + slot + 16}, 8, values, 2, new long[] {0, 8}, 8);
                vis.putStridedNb(r, 2048 + slot, new long[] {8, 16}, values, 16, new long[] {8, 16}, 8,
                    new long[] {2, 1}, 2).await();
                vis.putVectorNbi(r, 1, new long[] {4096 + slot}, new long[] {32}, values, 2, new long[] {0, 16},
                    new long[] {16, 16});
            }
            client.nbiWait(Ec.RMW);
            client.nbiWait(Ec.PUT);
            final Coll coll = Coll.of(client);
            coll.barrier(team);
            long added = 0;
            for (int r = 0; r < team.size(); r++) {
                added += 1 + team.jobRank(r);
                final long from = 100L * team.jobRank(r);
                final long at = 64L * r;
                assertEquals(from, mine.get(ValueLayout.JAVA_LONG, 1024 + at), "team rank " + r + "'s indexed put");
                assertEquals(from + 1, mine.get(ValueLayout.JAVA_LONG, 1024 + at + 16), "its second piece");
                assertEquals(from + 2, mine.get(ValueLayout.JAVA_LONG, 2048 + at), "team rank " + r + "'s strided put");
                assertEquals(from + 3, mine.get(ValueLayout.JAVA_LONG, 2048 + at + 8), "its second element");
                for (int i = 0; i < 4; i++) {
                    assertEquals(from + i, mine.get(ValueLayout.JAVA_LONG, 4096 + at + 8L * i),
                        "team rank " + r + "'s vector put, element " + i);
                }
            }
            assertEquals(1_001_001L * added, mine.get(ValueLayout.JAVA_LONG, 0), "the counter the team added to");
            assertEquals(0.75 * team.size(), mine.get(ValueLayout.JAVA_DOUBLE, 8), "the floating-point counter");
            final MemorySegment back = Arena.ofAuto().allocate(64);
            for (int r = 0; r < team.size(); r++) {
                back.fill((byte) 0);
                vis.getIndexed(back, 1, new long[] {0}, 16, r, 2, new long[] {1024 + slot, 1024 + slot + 16}, 8);
                vis.getStridedNb(back, 16, new long[] {8, 16}, r, 2048 + slot, new long[] {8, 16}, 8,
                    new long[] {2, 1}, 2).await();
                vis.getVectorNbi(back, 1, new long[] {32}, new long[] {32}, r, 1, new long[] {4096 + slot},
                    new long[] {32});
                client.nbiWait(Ec.GET);
                for (int i = 0; i < 4; i++) {
                    assertEquals(100L * me + i, back.getAtIndex(ValueLayout.JAVA_LONG, i),
                        "what this rank put at team rank " + r + ", read back, element " + i);
                    assertEquals(100L * me + i, back.getAtIndex(ValueLayout.JAVA_LONG, 4 + i),
                        "the vector get from team rank " + r + ", element " + i);
                }
            }
            coll.barrier(team);
            final int outside = team.size();
            assertMentions(assertThrows(IllegalArgumentException.class,
                () -> longs.opLong(outside, 0, AtomicOp.FADD, 1, 0, 0)), "team rank " + outside, "[0, " + outside
                + ")");
            assertMentions(assertThrows(IllegalArgumentException.class,
                () -> doubles.opDoubleNb(result, 8, -1, 8, AtomicOp.FADD, 1, 0, 0)), "team rank -1");
            assertMentions(assertThrows(IllegalArgumentException.class,
                () -> vis.putIndexed(outside, 1, new long[] {0}, 8, values, 1, new long[] {0}, 8)),
                "team rank " + outside);
            assertMentions(assertThrows(IllegalArgumentException.class,
                () -> vis.getVector(back, 1, new long[] {0}, new long[] {8}, -1, 1, new long[] {0}, new long[] {8})),
                "team rank -1");
            coll.barrier(team);
            assertEquals(1_001_001L * added, mine.get(ValueLayout.JAVA_LONG, 0), "the counter after refused adds");
            assertEquals(0.75 * team.size(), mine.get(ValueLayout.JAVA_DOUBLE, 8), "the floating-point counter");
            longs.close();
            assertThrows(IllegalStateException.class, () -> longs.opLong(0, 0, AtomicOp.FADD, 1, 0, 0));
            doubles.close();
            team.close();
            assertMentions(assertThrows(IllegalStateException.class,
                () -> team.atomicDomain(AtomicType.INT64, EnumSet.of(AtomicOp.ADD), 0)), "closed");
            client.barrier();
        });
    }

    /**
     * Reductions of sources in the segment, which a parent that maps its children's segments (smp) reads in place:
     * at 2 and 5 ranks (binomial trees above 4 KiB, so leaves and inner nodes), to one and to all, sizes on either side
     * of {@code GEX_COLL_IN_PLACE_MIN} (flat trees up to 4 KiB, among them 2400 and 4096 bytes), sources at moving
     * offsets; then bursts of 8 non-blocking reduce-to-ones of 3 KiB, read in place while the others are in flight.
     * Each rank overwrites its source as soon as its event completes, as a program may: a parent reading it after that
     * would sum garbage.
     */
    @Test
    void reductionsOfSegmentSourcesMatchTheModel() {
        for (int n : new int[] {2, 5}) {
            job(n, client -> {
                final MemorySegment segment = client.attachSegment(1 << 20).memory();
                final Coll coll = Coll.of(client);
                final Team job = Team.job(client);
                final int me = client.rank();
                final MemorySegment dst = Arena.ofAuto().allocate(64 * 1024);
                final int[] counts = {8, 100, 300, 512, 700, 2000};
                for (int step = 0; step < 48; step++) {
                    final int count = counts[step % counts.length];
                    final MemorySegment src = segment.asSlice(1024L * (step % 7) + 8L * me, 8L * count);
                    for (int i = 0; i < count; i++) {
                        src.setAtIndex(ValueLayout.JAVA_LONG, i, segmentValue(me, step, i));
                    }
                    final boolean toAll = step % 2 == 0;
                    final int root = step % n;
                    (toAll ? coll.reduceToAllNb(job, dst, src, AtomicType.INT64, count, ReduceOp.ADD)
                        : coll.reduceToOneNb(job, root, dst, src, AtomicType.INT64, count, ReduceOp.ADD)).await();
                    src.fill((byte) 0x5A); // the source may be reused once the event completed
                    if (toAll || me == root) {
                        for (int i = 0; i < count; i++) {
                            long expected = 0;
                            for (int r = 0; r < n; r++) {
                                expected += segmentValue(r, step, i);
                            }
                            assertEquals(expected, dst.getAtIndex(ValueLayout.JAVA_LONG, i), "step " + step + " at "
                                + n + " ranks: " + (toAll ? "reduce-to-all" : "reduce-to-one to " + root) + " of "
                                + count + " INT64, element " + i);
                        }
                    }
                }
                final int burst = 8;
                final int count = 384;
                final Event[] events = new Event[burst];
                for (int step = 48; step < 52; step++) {
                    for (int b = 0; b < burst; b++) {
                        final MemorySegment src = segment.asSlice(8L * count * (burst * me + b), 8L * count);
                        for (int i = 0; i < count; i++) {
                            src.setAtIndex(ValueLayout.JAVA_LONG, i, segmentValue(me, step * burst + b, i));
                        }
                        events[b] = coll.reduceToOneNb(job, 0, dst.asSlice(8L * count * b, 8L * count), src,
                            AtomicType.INT64, count, ReduceOp.ADD);
                    }
                    for (int b = 0; b < burst; b++) {
                        events[b].await();
                        segment.asSlice(8L * count * (burst * me + b), 8L * count).fill((byte) 0x5A);
                    }
                    for (int b = 0; me == 0 && b < burst; b++) {
                        for (int i = 0; i < count; i++) {
                            long expected = 0;
                            for (int r = 0; r < n; r++) {
                                expected += segmentValue(r, step * burst + b, i);
                            }
                            assertEquals(expected, dst.getAtIndex(ValueLayout.JAVA_LONG, count * b + i), "burst "
                                + step + " at " + n + " ranks: reduce-to-one " + b + " of 3 KiB, element " + i);
                        }
                    }
                }
                coll.barrier(job);
            });
        }
    }

    private static long segmentValue(int rank, int step, int i) {
        return (rank + 1) * 1_000_003L + step * 7919L + i;
    }

    /** On a team of one rank every collective is done when its call returns, its result in place. */
    @Test
    void collectivesOnAOneRankTeamAreDoneAtTheCall() {
        job(3, client -> {
            final Coll coll = Coll.of(client);
            final Team alone = Team.job(client).split(client.rank(), 0);
            assertEquals(1, alone.size());
            final MemorySegment src = MemorySegment.ofArray(new long[] {client.rank() + 40, 7});
            final MemorySegment dst = MemorySegment.ofArray(new long[2]);
            assertSame(Event.DONE, coll.barrierNb(alone));
            assertSame(Event.DONE, coll.broadcastNb(alone, 0, dst, src, 16));
            assertArrayEquals(new long[] {client.rank() + 40, 7}, dst.toArray(ValueLayout.JAVA_LONG));
            dst.fill((byte) 0);
            coll.reduceToAllNb(alone, dst, src, AtomicType.INT64, 2, ReduceOp.MAX).await();
            assertArrayEquals(new long[] {client.rank() + 40, 7}, dst.toArray(ValueLayout.JAVA_LONG));
            dst.fill((byte) 0);
            coll.reduceToOneNb(alone, 0, dst, src, 16, 1, CollKit.SUM_AND_MAX).await();
            assertArrayEquals(new long[] {client.rank() + 40, 7}, dst.toArray(ValueLayout.JAVA_LONG));
            assertMentions(assertThrows(IllegalArgumentException.class, () -> coll.broadcastNb(alone, 1, dst, src, 8)),
                "root 1");
            alone.close();
            coll.barrier(Team.job(client));
        });
    }
}
