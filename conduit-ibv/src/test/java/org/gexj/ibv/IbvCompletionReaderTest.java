package org.gexj.ibv;

import org.gexj.ibv.ffm.Verbs;
import org.gexj.ibv.ffm.VerbsLayouts;
import org.gexj.ibv.ffm.WorkCompletions;
import org.gexj.rdma.RdmaNic;
import org.gexj.testkit.AllocationMeasureKit;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How the ibv NIC reads a completion queue, against a scripted queue instead of a device: every entry comes out once,
 * in the queue's order, successful ones in batches and each one in error alone ({@link IbvCompletionReader}); and how
 * it decodes an entry for the engine ({@link IbvCompletions}): the buffer from the context slot, the sender from the
 * QP number, without allocating.
 */
class IbvCompletionReaderTest {
    private static final long WC = VerbsLayouts.IBV_WC.byteSize();
    private static final long WR_ID = VerbsLayouts.offset(VerbsLayouts.IBV_WC, "wr_id");
    private static final long STATUS = VerbsLayouts.offset(VerbsLayouts.IBV_WC, "status");
    private static final long OPCODE = VerbsLayouts.offset(VerbsLayouts.IBV_WC, "opcode");
    private static final long BYTE_LEN = VerbsLayouts.offset(VerbsLayouts.IBV_WC, "byte_len");
    private static final long IMM = VerbsLayouts.offset(VerbsLayouts.IBV_WC, "imm_data");
    private static final long QP_NUM = VerbsLayouts.offset(VerbsLayouts.IBV_WC, "qp_num");

    /** An entry of the scripted queue: its wr_id and status. */
    private record Entry(long wrId, int status) {
    }

    private static void write(MemorySegment wc, int i, long wrId, int status, int opcode, int length, int imm,
                              int qpn) {
        wc.set(JAVA_LONG, i * WC + WR_ID, wrId);
        wc.set(JAVA_INT, i * WC + STATUS, status);
        wc.set(JAVA_INT, i * WC + OPCODE, opcode);
        wc.set(JAVA_INT, i * WC + BYTE_LEN, length);
        wc.set(JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN), i * WC + IMM, imm);
        wc.set(JAVA_INT, i * WC + QP_NUM, qpn);
    }

    @Test
    void everyEntryComesOutOnceInOrderAndEachErrorAlone() {
        final Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            final Deque<Entry> queue = new ArrayDeque<>();
            final int entries = random.nextInt(100);
            for (int i = 0; i < entries; i++) {
                queue.add(new Entry(i + 1, random.nextInt(4) == 0 ? Verbs.IBV_WC_WR_FLUSH_ERR : 0));
            }
            final List<Entry> expected = List.copyOf(queue);
            try (Arena arena = Arena.ofConfined()) {
                final IbvCompletionReader reader = new IbvCompletionReader((max, wc) -> {
                    final int n = Math.min(queue.size(), random.nextInt(max + 1));
                    for (int i = 0; i < n; i++) {
                        final Entry e = queue.poll();
                        write(wc, i, e.wrId(), e.status(), Verbs.IBV_WC_SEND, 0, 0, 7);
                    }
                    return n;
                });
                final int capacity = 1 + random.nextInt(8);
                reader.reserve(arena, capacity);
                final WorkCompletions wc = new WorkCompletions(arena, capacity);
                final List<Entry> seen = new ArrayList<>();
                boolean drained = false;
                while (!drained) {
                    final long n = reader.read(wc, capacity);
                    if (n == RdmaNic.ERROR_AVAILABLE) {
                        final int i = reader.pendingError();
                        assertTrue(i >= 0, "ERROR_AVAILABLE with no entry in error");
                        seen.add(new Entry(reader.carry().wrId(i), reader.carry().status(i)));
                        reader.errorTaken();
                        assertTrue(reader.pendingError() != i, "the error is handed out once");
                    } else if (n == RdmaNic.AGAIN) {
                        // the fake queue may poll none while it holds entries; a carry never reads AGAIN
                        drained = queue.isEmpty();
                    } else {
                        assertTrue(n > 0 && n <= capacity, "batch of " + n);
                        for (int i = 0; i < n; i++) {
                            assertEquals(0, wc.status(i), "a batch holds successful entries only");
                            seen.add(new Entry(wc.wrId(i), wc.status(i)));
                        }
                    }
                }
                assertEquals(expected, seen, "round " + round);
                assertFalse(reader.pendingError() >= 0);
            }
        }
    }

    @Test
    void entriesAreDecodedFromTheContextSlotAndTheQpNumberWithoutAllocating() {
        try (Arena arena = Arena.ofConfined()) {
            final IbvQpTable qps = new IbvQpTable(2);
            qps.put(100, 1);
            qps.put(200, 0);
            final MemorySegment slot = arena.allocate(64, 64);
            slot.set(JAVA_LONG, 0, 0x1234_5000L);
            final WorkCompletions wc = new WorkCompletions(arena, 4);
            final MemorySegment s = wc.segment();
            write(s, 0, slot.address(), 0, Verbs.IBV_WC_RECV, 64, 0, 100);
            write(s, 1, slot.address(), 0, Verbs.IBV_WC_RECV_RDMA_WITH_IMM, 0, 0xCAFE_BABE, 200);
            write(s, 2, 77, 0, Verbs.IBV_WC_SEND, 0, 0, 100);
            write(s, 3, slot.address(), 0, Verbs.IBV_WC_RECV, 16, 0, 300);
            final IbvCompletions c = new IbvCompletions(wc, qps);
            assertFalse(c.remoteData(0));
            assertTrue(c.releases(0));
            assertEquals(0x1234_5000L, c.buffer(0));
            assertEquals(64, c.length(0));
            assertEquals(1, c.source(0));
            assertTrue(c.remoteData(1));
            assertTrue(c.releases(1));
            assertEquals(0xCAFE_BABEL, c.data(1), "rank 0 in the high half, the immediate in the low half");
            assertFalse(c.remoteData(2));
            assertFalse(c.releases(2));
            assertEquals(77, c.context(2));
            assertEquals(RdmaNic.FOREIGN_SOURCE, c.source(3), "a QP of no peer");
            assertEquals(-1, (int) (c.data(3) >>> 32), "no rank for the engine to trust");
            long least = Long.MAX_VALUE;
            long sink = 0;
            for (int window = 0; window < 4; window++) {
                final long before = AllocationMeasureKit.allocatedBytes();
                for (int i = 0; i < 100_000; i++) {
                    final int k = i & 3;
                    sink += c.context(k) + c.length(k) + c.data(k) + c.source(k) + (c.remoteData(k) ? 1 : 0)
                        + (c.releases(k) ? 1 : 0) + (k != 2 ? c.buffer(k) : 0);
                }
                final long bytes = AllocationMeasureKit.allocatedBytes() - before;
                if (window > 0) {
                    least = Math.min(least, bytes);
                }
            }
            assertEquals(0, least, "bytes allocated reading 100000 entries (sink " + sink + ")");
        }
    }
}
