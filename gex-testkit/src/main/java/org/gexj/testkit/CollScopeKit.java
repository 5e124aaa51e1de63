package org.gexj.testkit;

import org.gexj.Event;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.TeamAm;
import org.gexj.coll.Coll;
import org.gexj.coll.ReduceOp;
import org.gexj.coll.Team;
import org.gexj.coll.TeamRma;
import org.gexj.rma.AtomicType;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.gexj.testkit.CollKit.assertMentions;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * What a team scopes besides its collectives, on every conduit: AM and RMA addressed by team rank, reductions that
 * read sources in the segment in place (smp), and teams of one rank, whose collectives are done at the call. The
 * collectives themselves are {@link CollKit}'s, their flow control {@link CollFlowKit}'s.
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
     * Reductions of sources in the segment, which a parent that maps its children's segments (smp) reads in place:
     * at 2 and 5 ranks (binomial trees above 4 KiB, so leaves and inner nodes), to one and to all, sizes on either side
     * of {@code GEX_COLL_IN_PLACE_MIN}, sources at moving offsets. Each rank overwrites its source as soon as its event
     * completes, as a program may: a parent reading it after that would sum garbage.
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
                final int[] counts = {8, 100, 700, 2000};
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
