package org.gexj.rma;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The target's matching of a put or get with completion that travels in several messages: whichever order the header
 * and its chunks arrive in, the completion is released exactly once, by the last of them, with the header's data; a
 * refused message anywhere releases nothing; entries are clean for the slot's next operation.
 */
class CompletionLedgerTest {
    private static final int SOURCE = 1;

    /** Runs one operation of {@code chunks} chunks with its header at {@code headerAt}; returns what was delivered. */
    private static int run(CompletionLedger ledger, CompletionRing ring, int op, long id, int chunks, int headerAt,
                           int refusedAt, boolean deliver) {
        int delivered = 0;
        for (int m = 0; m <= chunks; m++) {
            final boolean refused = m == refusedAt;
            if (m == headerAt) {
                final int length = (int) (id % (Pwc.MAX_COMPLETION_DATA + 1));
                final int verdict = ledger.header(SOURCE, op, id, length, deliver, chunks, refused);
                if (verdict == CompletionLedger.DELIVER) {
                    ring.add(SOURCE, id, data(id, length), 0, length);
                    delivered++;
                } else if (verdict == CompletionLedger.KEEP) {
                    MemorySegment.copy(data(id, length), 0, ledger.keptData(SOURCE), CompletionLedger.keptAt(op),
                        length);
                }
            } else {
                final int before = ring.size();
                ledger.chunk(SOURCE, op, refused, ring);
                delivered += ring.size() - before;
            }
        }
        return delivered;
    }

    private static MemorySegment data(long id, int length) {
        final MemorySegment d = Arena.ofAuto().allocate(Math.max(1, length));
        for (int i = 0; i < length; i++) {
            d.set(ValueLayout.JAVA_BYTE, i, (byte) (id * 7 + i));
        }
        return d;
    }

    @Test
    void everyOrderReleasesTheCompletionOnceWithTheHeadersData() {
        final CompletionLedger ledger = new CompletionLedger(2, 4);
        final CompletionRing ring = new CompletionRing(2);
        final Completion c = new Completion();
        long id = 1;
        for (int chunks = 0; chunks <= 5; chunks++) {
            for (int headerAt = 0; headerAt <= chunks; headerAt++) {
                for (int op = 0; op < 6; op++) { // 4 and 5 exceed the ledger's slots: it grows
                    assertEquals(1, run(ledger, ring, op, id, chunks, headerAt, -1, true),
                        chunks + " chunks, header " + headerAt);
                    assertEquals(SOURCE, ring.take(c));
                    assertEquals(id, c.id());
                    assertEquals(id % (Pwc.MAX_COMPLETION_DATA + 1), c.dataLength());
                    for (int i = 0; i < c.dataLength(); i++) {
                        assertEquals((byte) (id * 7 + i), c.dataByte(i));
                    }
                    assertEquals(0, ledger.pending(SOURCE));
                    id += 13;
                }
            }
        }
        assertEquals(-1, ring.take(c));
    }

    @Test
    void aRefusedMessageAnywhereOrNoRemoteCompletionReleasesNothing() {
        final CompletionLedger ledger = new CompletionLedger(2, 2);
        final CompletionRing ring = new CompletionRing(2);
        for (int chunks = 0; chunks <= 3; chunks++) {
            for (int headerAt = 0; headerAt <= chunks; headerAt++) {
                for (int refusedAt = 0; refusedAt <= chunks; refusedAt++) {
                    assertEquals(0, run(ledger, ring, 1, 5, chunks, headerAt, refusedAt, true));
                    assertEquals(0, ledger.pending(SOURCE));
                }
                assertEquals(0, run(ledger, ring, 1, 5, chunks, headerAt, -1, false));
                // and the slot's next operation is released as usual: nothing of the refusal stays
                assertEquals(1, run(ledger, ring, 1, 6, chunks, headerAt, -1, true));
                assertEquals(1, ring.size());
                ring.take(new Completion());
            }
        }
    }

    @Test
    void theRingKeepsOrderAndDataWhileItGrows() {
        final CompletionRing ring = new CompletionRing(1);
        final Completion c = new Completion();
        final java.util.ArrayDeque<Long> model = new java.util.ArrayDeque<>();
        for (int round = 0; round < 50; round++) {
            for (int i = 0; i < round; i++) {
                final long id = round * 1000L + i;
                ring.add((int) (id % 3), id, data(id, 8), 0, 8);
                model.add(id);
            }
            for (int i = 0; i < round / 2; i++) {
                check(ring, c, model.poll());
            }
        }
        while (!model.isEmpty()) {
            check(ring, c, model.poll());
        }
        assertEquals(-1, ring.take(c));
    }

    private static void check(CompletionRing ring, Completion c, long id) {
        assertEquals((int) (id % 3), ring.take(c));
        assertEquals(id, c.id());
        assertEquals((byte) (id * 7 + 7), c.dataByte(7));
        assertTrue(c.toString().contains("id " + id));
    }
}
