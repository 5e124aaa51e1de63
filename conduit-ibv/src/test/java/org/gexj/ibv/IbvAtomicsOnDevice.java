package org.gexj.ibv;

import org.gexj.rma.AtomicDomain;
import org.gexj.rma.AtomicOp;
import org.gexj.rma.AtomicType;
import org.gexj.testkit.ConduitKit;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.BitSet;
import java.util.EnumSet;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Remote atomics the HCA performs (verbs' 64-bit fetch-and-add and compare-and-swap) on a real device, e.g.
 * Soft-RoCE in the guest of tools/rxe-vm: {@code tools/rxe-vm/run-junit.sh conduit-ibv IbvAtomicsOnDevice}. A domain
 * whose type and operations the HCA takes uses it without hints; one with other operations, or FAVOR_MY_RANK, uses
 * active messages. Not run by the host suite (no device there).
 */
class IbvAtomicsOnDevice extends ConduitKit {
    private static final EnumSet<AtomicOp> HCA_OPS = EnumSet.of(AtomicOp.GET, AtomicOp.CAS, AtomicOp.FCAS,
        AtomicOp.ADD, AtomicOp.FADD, AtomicOp.SUB, AtomicOp.FSUB, AtomicOp.INC, AtomicOp.FINC, AtomicOp.DEC,
        AtomicOp.FDEC);

    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ibv");
    }

    /** Software RDMA under emulation runs tens of times slower than the host. */
    @Override
    protected Duration timeout() {
        return Duration.ofMinutes(5);
    }

    /**
     * Both ranks' two threads fetch-and-increment a counter on rank 0 and on rank 1 (themselves included, through the
     * HCA too), and check every value appears once; then each operation's result against its definition; the HCA
     * performed them ({@code ibv.atomics}), and a domain with SET among its operations took active messages instead.
     */
    @Test
    void theHcaPerformsSixtyFourBitAtomics() {
        final int perThread = 200;
        job(2, client -> {
            client.attachSegment(4096).memory().fill((byte) 0);
            final AtomicDomain longs = AtomicDomain.create(client, AtomicType.INT64, HCA_OPS, 0);
            final AtomicDomain bits = AtomicDomain.create(client, AtomicType.FLOAT64, EnumSet.of(AtomicOp.GET,
                AtomicOp.FCAS), 0);
            final AtomicDomain viaAm = AtomicDomain.create(client, AtomicType.INT64, EnumSet.of(AtomicOp.SET,
                AtomicOp.FADD), 0);
            client.barrier();
            final long before = client.stats().get("ibv.atomics");
            final long[][] got = new long[2][2 * perThread];
            final Thread[] threads = new Thread[2];
            for (int t = 0; t < 2; t++) {
                final int thread = t;
                threads[t] = Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < perThread; i++) {
                        for (int target = 0; target < 2; target++) {
                            got[target][thread * perThread + i] = longs.opLong(target, 0, AtomicOp.FINC, 0, 0, 0);
                        }
                    }
                });
            }
            for (Thread t : threads) {
                t.join();
            }
            final int total = 2 * 2 * perThread;
            final MemorySegment mine = client.segment().memory();
            for (int target = 0; target < 2; target++) {
                final BitSet seen = new BitSet(total);
                long sum = 0;
                for (long v : got[target]) {
                    assertTrue(v >= 0 && v < total && !seen.get((int) v), "value " + v + " twice or out of range");
                    seen.set((int) v);
                    sum += v;
                }
                mine.set(ValueLayout.JAVA_LONG, 64 + 8L * target, sum);
            }
            client.barrier();
            for (int target = 0; target < 2; target++) {
                assertEquals(total, longs.opLong(target, 0, AtomicOp.GET, 0, 0, 0), "counter on rank " + target);
                // this rank's values and the peer's are disjoint: together they sum to 0 + 1 + ... + total - 1
                final long theirs = longs.opLong(1 - client.rank(), 64 + 8L * target, AtomicOp.GET, 0, 0, 0);
                assertEquals((long) total * (total - 1) / 2, mine.get(ValueLayout.JAVA_LONG, 64 + 8L * target)
                    + theirs, "the values fetched from rank " + target);
            }
            client.barrier();
            if (client.rank() == 0) {
                final int peer = 1;
                assertEquals(total, longs.opLong(peer, 0, AtomicOp.FSUB, 5, 0, 0));
                assertEquals(total - 5, longs.opLong(peer, 0, AtomicOp.FDEC, 0, 0, 0));
                assertEquals(total - 6, longs.opLong(peer, 0, AtomicOp.FCAS, total - 6, -7, 0));
                assertEquals(-7, longs.opLong(peer, 0, AtomicOp.FCAS, 0, 99, 0), "a failed CAS changes nothing");
                longs.opLong(peer, 0, AtomicOp.ADD, 10, 0, 0);
                assertEquals(3, longs.opLong(peer, 0, AtomicOp.GET, 0, 0, 0));
                final long one = Double.doubleToRawLongBits(1.0);
                bits.opDouble(peer, 8, AtomicOp.FCAS, 0.0, 1.5, 0);
                assertEquals(1.5, bits.opDouble(peer, 8, AtomicOp.GET, 0, 0, 0));
                assertEquals(1.5, bits.opDouble(peer, 8, AtomicOp.FCAS, 1.0, 2.0, 0), "compared as bits: " + one);
                final long hca = client.stats().get("ibv.atomics") - before;
                assertTrue(hca >= 2L * 2 * perThread + 8, "the HCA performed " + hca + " atomics");
                final long mark = client.stats().get("ibv.atomics");
                viaAm.opLong(peer, 16, AtomicOp.SET, 4, 0, 0);
                assertEquals(4, viaAm.opLong(peer, 16, AtomicOp.FADD, 1, 0, 0));
                assertEquals(mark, client.stats().get("ibv.atomics"), "a domain with SET goes over AM");
            }
            client.barrier();
            longs.close();
            bits.close();
            viaAm.close();
        });
    }
}
