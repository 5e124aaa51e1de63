package org.gexj.ibv;

import org.gexj.ibv.wire.IbvConnectFlyweight;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * The on-demand connection protocol over a simulated network that loses, repeats and reorders datagrams, with QPs that
 * record how they were connected: whatever happens, each pair of ranks gets one QP per side, connected to each other
 * with agreeing PSNs; a rank sends only once the peer's QP is connected; and once the network delivers again, every
 * wanted connection completes on both sides.
 */
class IbvConnectorProperties {
    private static final long TIMEOUT = 3_600_000_000_000L;

    /** One QP of the simulation: who made it toward whom, and what it was connected to. */
    private static final class Qp {
        final int owner;
        final int peer;
        int remote = -1;
        int remotePsn = -1;
        int localPsn = -1;
        int connects;

        Qp(int owner, int peer) {
            this.owner = owner;
            this.peer = peer;
        }
    }

    private record Datagram(int from, int to, int kind, int qpn, int psn) {
    }

    /** Ranks, their connectors, their QPs and the datagrams in flight. */
    private static final class Sim {
        final int size;
        final IbvConnector[] ranks;
        final List<Qp> qps = new ArrayList<>();
        final Map<Long, Integer> qpOf = new HashMap<>();
        final List<Datagram> flight = new ArrayList<>();
        long now;

        Sim(int size, long seed) {
            this.size = size;
            this.ranks = new IbvConnector[size];
            final Random psns = new Random(seed);
            for (int r = 0; r < size; r++) {
                final int me = r;
                ranks[r] = new IbvConnector(new IbvConnector.Link() {
                    @Override
                    public int createQp(int peer) {
                        final Integer old = qpOf.put(key(me, peer), qps.size());
                        if (old != null) {
                            fail("rank " + me + " made a second QP toward rank " + peer);
                        }
                        qps.add(new Qp(me, peer));
                        return qps.size() - 1;
                    }

                    @Override
                    public void connect(int peer, int remoteQpn, int remotePsn, int localPsn) {
                        final Qp qp = qps.get(qpOf.get(key(me, peer)));
                        qp.connects++;
                        qp.remote = remoteQpn;
                        qp.remotePsn = remotePsn;
                        qp.localPsn = localPsn;
                    }

                    @Override
                    public void send(int peer, int kind, int qpn, int psn) {
                        flight.add(new Datagram(me, peer, kind, qpn, psn));
                    }
                }, r, size, TIMEOUT, new SplittableRandom(psns.nextLong()));
                ranks[r].connectedAtOpen(r);
            }
        }

        static long key(int owner, int peer) {
            return ((long) owner << 32) | peer;
        }

        Qp qp(int owner, int peer) {
            final Integer i = qpOf.get(key(owner, peer));
            return i == null ? null : qps.get(i);
        }

        void deliver(int index, boolean keepCopy) {
            final Datagram d = keepCopy ? flight.get(index) : flight.remove(index);
            ranks[d.to].receive(d.from, d.kind, d.qpn, d.psn, now);
        }

        /** Every QP connected once at most; a connected rank's QP and its peer's are connected to each other. */
        void checkSafety() {
            for (Qp qp : qps) {
                assertTrue(qp.connects <= 1, "QP of rank " + qp.owner + " toward " + qp.peer + " connected "
                    + qp.connects + " times");
            }
            for (int a = 0; a < size; a++) {
                for (int b = 0; b < size; b++) {
                    if (a == b || !ranks[a].connected(b)) {
                        continue;
                    }
                    final Qp mine = qp(a, b);
                    final Qp theirs = qp(b, a);
                    assertTrue(mine != null && theirs != null, "rank " + a + " may send to " + b
                        + " without both QPs");
                    assertEquals(qpOf.get(key(b, a)), mine.remote, "rank " + a + "'s QP toward " + b);
                    assertEquals(qpOf.get(key(a, b)), theirs.remote, "rank " + b + "'s QP toward " + a
                        + " must be connected before " + a + " sends");
                    assertEquals(mine.localPsn, theirs.remotePsn, "PSN " + a + " -> " + b);
                    assertEquals(theirs.localPsn, mine.remotePsn, "PSN " + b + " -> " + a);
                }
            }
        }

        /** Delivers everything, ticking with time, until nothing is in flight and nobody is busy. */
        void settle() {
            for (int round = 0; round < 10_000; round++) {
                while (!flight.isEmpty()) {
                    deliver(0, false);
                    checkSafety();
                }
                boolean busy = false;
                for (IbvConnector c : ranks) {
                    busy |= c.busy();
                }
                if (!busy) {
                    return;
                }
                now += IbvConnector.MAX_RETRY_NS;
                for (IbvConnector c : ranks) {
                    assertEquals(-1, c.tick(now));
                }
            }
            fail("the protocol did not settle in 10000 rounds");
        }
    }

    @Test
    void lossRepetitionAndReorderingNeverMakeTwoPairsAndEveryWantedPairConnects() {
        qt().withExamples(400).forAll(integers().between(2, 6), longs().all(), integers().between(0, 60))
            .checkAssert((size, seed, lossPercent) -> {
                final Sim sim = new Sim(size, seed);
                final SplittableRandom random = new SplittableRandom(seed);
                final boolean[][] wanted = new boolean[size][size];
                for (int step = 0; step < 400; step++) {
                    final int action = random.nextInt(10);
                    if (action < 2) {
                        final int a = random.nextInt(size);
                        final int b = random.nextInt(size);
                        if (a != b && !sim.ranks[a].connected(b)) {
                            wanted[a][b] = true;
                            sim.ranks[a].want(b, sim.now);
                        }
                    } else if (action < 7 && !sim.flight.isEmpty()) {
                        final int i = random.nextInt(sim.flight.size());
                        if (random.nextInt(100) < lossPercent) {
                            sim.flight.remove(i);
                        } else {
                            sim.deliver(i, random.nextInt(10) == 0); // now and then a duplicate stays behind
                        }
                    } else {
                        sim.now += random.nextLong(2 * IbvConnector.FIRST_RETRY_NS);
                        for (IbvConnector c : sim.ranks) {
                            assertEquals(-1, c.tick(sim.now));
                        }
                    }
                    sim.checkSafety();
                }
                sim.settle();
                for (int a = 0; a < size; a++) {
                    for (int b = 0; b < size; b++) {
                        if (wanted[a][b]) {
                            assertTrue(sim.ranks[a].connected(b), a + " wanted " + b);
                            assertTrue(sim.ranks[b].connected(a), b + " was asked by " + a);
                        }
                        if (a != b && !wanted[a][b] && !wanted[b][a]) {
                            assertFalse(sim.ranks[a].started(b), "nobody wanted " + a + " <-> " + b);
                            assertEquals(null, sim.qp(a, b));
                        }
                    }
                }
            });
    }

    @Test
    void crossingRequestsConnectOnePair() {
        final Sim sim = new Sim(2, 7);
        sim.ranks[0].want(1, 0);
        sim.ranks[1].want(0, 0);
        assertEquals(2, sim.flight.size());
        assertEquals(IbvConnectFlyweight.REQUEST, sim.flight.get(0).kind());
        sim.deliver(1, false); // 1's request reaches 0 first: 0 answers, and connects its QP
        assertEquals(IbvConnector.ANSWERED, sim.ranks[0].state(1));
        assertFalse(sim.ranks[0].connected(1), "0 must not send before 1's QP is connected");
        sim.settle();
        assertTrue(sim.ranks[0].connected(1) && sim.ranks[1].connected(0));
        assertEquals(2, sim.qps.size());
        sim.checkSafety();
        assertEquals(1, sim.ranks[0].requests());
        assertEquals(1, sim.ranks[1].requests());
    }

    @Test
    void aLostRequestIsSentAgainWithBackOff() {
        final Sim sim = new Sim(2, 3);
        sim.ranks[0].want(1, 0);
        sim.flight.clear();
        sim.now = IbvConnector.FIRST_RETRY_NS - 1;
        sim.ranks[0].tick(sim.now);
        assertEquals(0, sim.flight.size(), "not before the first retry is due");
        sim.now = IbvConnector.FIRST_RETRY_NS;
        sim.ranks[0].tick(sim.now);
        assertEquals(1, sim.flight.size());
        sim.flight.clear();
        sim.now += IbvConnector.FIRST_RETRY_NS;
        sim.ranks[0].tick(sim.now);
        assertEquals(0, sim.flight.size(), "the second retry waits twice as long");
        sim.now += IbvConnector.FIRST_RETRY_NS;
        sim.ranks[0].tick(sim.now);
        assertEquals(1, sim.flight.size());
        assertEquals(2, sim.ranks[0].retries());
        sim.settle();
        assertTrue(sim.ranks[0].connected(1) && sim.ranks[1].connected(0));
        assertEquals(3 * IbvConnector.FIRST_RETRY_NS, sim.ranks[0].setupNanos(), "from the request to REPLY");
        assertEquals(0, sim.ranks[1].setupNanos(), "rank 1 asked for nothing");
    }

    @Test
    void aPeerThatNeverAnswersIsNamedAfterTheTimeout() {
        final List<Datagram> sent = new ArrayList<>();
        final int[] next = {100};
        final IbvConnector c = new IbvConnector(new IbvConnector.Link() {
            @Override
            public int createQp(int peer) {
                return next[0]++;
            }

            @Override
            public void connect(int peer, int remoteQpn, int remotePsn, int localPsn) {
                fail("nobody answered");
            }

            @Override
            public void send(int peer, int kind, int qpn, int psn) {
                sent.add(new Datagram(0, peer, kind, qpn, psn));
            }
        }, 0, 4, 2_000_000_000L, new SplittableRandom(1));
        c.want(3, 0);
        long now = 0;
        while (now < 2_000_000_000L) {
            now += 100_000_000L;
            assertEquals(-1, c.tick(now), "not late at " + now);
        }
        assertEquals(3, c.tick(now + IbvConnector.MAX_RETRY_NS));
        assertTrue(c.lateReason(3, "GEX_IBV_TIMEOUT").startsWith("rank 3 did not complete an on-demand connection"
            + " in 2 s (no reply to "), c.lateReason(3, "GEX_IBV_TIMEOUT"));
        assertTrue(sent.size() > 3, "requests were sent again: " + sent.size());
    }

    @Test
    void aDatagramNamingAnotherQpIsDroppedOnceConnected() {
        final Sim sim = new Sim(2, 11);
        sim.ranks[0].want(1, 0);
        sim.settle();
        final int theirs = sim.qpOf.get(Sim.key(1, 0));
        sim.ranks[0].receive(1, IbvConnectFlyweight.REPLY, theirs + 1000, 5, sim.now);
        sim.ranks[0].receive(1, IbvConnectFlyweight.REQUEST, theirs + 1000, 5, sim.now);
        assertEquals(2, sim.ranks[0].dropped());
        assertTrue(sim.flight.isEmpty(), "nothing answered: " + sim.flight);
        assertEquals(1, sim.qp(0, 1).connects);
        sim.ranks[0].receive(1, IbvConnectFlyweight.REPLY, theirs, sim.qp(1, 0).localPsn, sim.now);
        assertEquals(IbvConnectFlyweight.READY, sim.flight.get(0).kind(), "a repeated reply is answered again");
    }
}
