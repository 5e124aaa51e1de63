package org.gexj.ibv;

import org.gexj.Client;
import org.gexj.launch.InProcessJob;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connections of the ibv conduit on a real device ({@code tools/rxe-vm/run-junit.sh conduit-ibv IbvConnectOnDevice};
 * not run by the host suite): on demand, a rank makes QPs only toward the ranks it exchanges with (the dissemination
 * barrier's partners and its own traffic), requests that cross make one pair, and {@code static} connects every pair
 * at open. Counted by the conduit's {@code ibv.qps}, {@code ibv.connections} and {@code ibv.receive.buffers} (a share
 * per connected rank on demand), read after each rank's close.
 */
class IbvConnectOnDevice {
    private static final Duration TIMEOUT = Duration.ofMinutes(5);
    private static final long SEGMENT = 1 << 16;

    /** Each rank's conduit counters after its close. */
    private static Map<Integer, Map<String, Long>> job(int ranks, String connect, JobBody body) {
        final Map<Integer, Map<String, Long>> counters = new ConcurrentHashMap<>();
        final Map<String, String> env = new HashMap<>();
        env.put("GEX_CONDUIT", "ibv");
        env.put("GEX_IBV_CONNECT", connect);
        InProcessJob.run(ranks, TIMEOUT, env, client -> {
            body.run(client, Rma.of(client), client.attachSegment(SEGMENT).memory());
            client.close();
            counters.put(client.rank(), client.conduitCounters());
        });
        return counters;
    }

    @FunctionalInterface
    private interface JobBody {
        void run(Client client, Rma rma, MemorySegment segment) throws Exception;
    }

    /** The ranks the dissemination barrier of {@code size} ranks makes {@code rank} exchange with. */
    private static Set<Integer> barrierPartners(int rank, int size) {
        final Set<Integer> partners = new TreeSet<>();
        for (int distance = 1; distance < size; distance <<= 1) {
            partners.add((rank + distance) % size);
            partners.add((rank - distance + size) % size);
        }
        return partners;
    }

    /** Writes a value into {@code peer}'s segment and reads it back. */
    private static void putAndGet(Rma rma, int peer, long offset, long value) {
        final MemorySegment buffer = Arena.ofAuto().allocate(8);
        buffer.set(JAVA_LONG, 0, value);
        rma.put(peer, offset, buffer, 0, 8);
        buffer.set(JAVA_LONG, 0, 0);
        rma.get(buffer, 0, peer, offset, 8);
        assertEquals(value, buffer.get(JAVA_LONG, 0), "value read back from rank " + peer);
    }

    @Test
    void onDemandARankConnectsOnlyToTheRanksItExchangesWith() {
        final int size = 6; // rank r's barrier partners are r +- 1 and r +- 2: r + 3 is not one
        final Map<Integer, Map<String, Long>> counters = job(size, "ondemand", (client, rma, segment) -> {
            if (client.rank() == 0) {
                putAndGet(rma, 3, 0, 0x1234_5678_9ABCL);
            }
            client.barrier();
        });
        for (int r = 0; r < size; r++) {
            final Set<Integer> peers = barrierPartners(r, size);
            if (r == 0 || r == 3) {
                peers.add(3 - r);
            }
            final Map<String, Long> c = counters.get(r);
            assertEquals(peers.size() + 1L, c.get("ibv.connections"), "rank " + r + " (itself, " + peers + "): " + c);
            assertEquals(peers.size() + 2L, c.get("ibv.qps"), "rank " + r + ": a QP per peer, two toward itself: " + c);
            assertEquals(0L, c.get("ibv.connect.dropped"), "rank " + r + ": " + c);
        }
        assertTrue(counters.get(1).get("ibv.qps") < size + 1, "rank 1 never exchanged with rank 4: " + counters);
        // receive buffers: a share per connected rank (itself included), so rank 1 pins fewer than for all 6
        final long share = counters.get(0).get("ibv.receive.buffers") / counters.get(0).get("ibv.connections");
        for (int r = 0; r < size; r++) {
            final Map<String, Long> c = counters.get(r);
            assertEquals(c.get("ibv.connections") * share, c.get("ibv.receive.buffers"), "rank " + r + ": " + c);
        }
        assertTrue(counters.get(1).get("ibv.receive.buffers") < size * share, "rank 1: " + counters.get(1));
    }

    @Test
    void crossingRequestsFromEveryRankAtOnceMakeOneQpPairPerPeer() {
        final int size = 4;
        final Map<Integer, Map<String, Long>> counters = job(size, "ondemand", (client, rma, segment) -> {
            final int me = client.rank();
            // every rank writes to every other at once, before any barrier that would connect them first
            for (int p = 0; p < size; p++) {
                if (p != me) {
                    putAndGet(rma, p, 8L * me, 1000L * me + p);
                }
            }
            client.barrier();
            for (int p = 0; p < size; p++) {
                if (p != me) {
                    assertEquals(1000L * p + me, segment.get(JAVA_LONG, 8L * p), "what rank " + p + " wrote");
                }
            }
        });
        for (int r = 0; r < size; r++) {
            final Map<String, Long> c = counters.get(r);
            assertEquals((long) size, c.get("ibv.connections"), "rank " + r + ": " + c);
            assertEquals(size + 1L, c.get("ibv.qps"), "rank " + r + ": one QP per peer, never two: " + c);
        }
    }

    @Test
    void staticConnectsEveryPairAtOpen() {
        final int size = 3;
        final Map<Integer, Map<String, Long>> counters = job(size, "static", (client, rma, segment) -> {
            assertEquals(size + 1L, client.conduitCounters().get("ibv.qps"), "every QP made at open");
            putAndGet(rma, (client.rank() + 1) % size, 0, 77L + client.rank());
            client.barrier();
        });
        for (int r = 0; r < size; r++) {
            assertEquals(size + 1L, counters.get(r).get("ibv.qps"), "rank " + r);
            assertEquals(0L, counters.get(r).get("ibv.connect.requests"), "rank " + r);
            assertEquals(counters.get(0).get("ibv.receive.buffers"), counters.get(r).get("ibv.receive.buffers"),
                "rank " + r + ": every rank's share posted at open");
        }
    }
}
