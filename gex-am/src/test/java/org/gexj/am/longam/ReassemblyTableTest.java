package org.gexj.am.longam;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReassemblyTableTest {
    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    /**
     * Steady state allocates nothing: 128 keys in flight at once (within capacity), each matched in alternating order
     * and recycled, a million times. Reading the counter itself costs about 800 bytes per window (measured on JDK 25,
     * the same for 0 or 5 million pairs), hence a constant slack; one object per pair would be at least 16 MB.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void steadyStateAllocatesNothing() {
        final int keys = 128;
        final ReassemblyTable table = new ReassemblyTable(keys, 96);
        final UnsafeBuffer receive = new UnsafeBuffer(new byte[256]);
        receive.setMemory(0, 256, (byte) 7);
        long checksum = exchange(table, receive, keys, 200_000);
        final long before = allocated();
        checksum += exchange(table, receive, keys, 1_000_000);
        final long bytes = allocated() - before;
        System.out.println("ReassemblyTable: " + bytes + " bytes allocated over 1000000 payload/envelope pairs");
        assertTrue(bytes < 4096, bytes + " bytes allocated over 1000000 pairs");
        assertEquals(0, table.size());
        assertEquals(keys, table.capacity(), "no growth within capacity");
        assertTrue(checksum > 0);
    }

    /**
     * The first halves of a batch of keys, then their second halves: the table holds {@code keys} entries at its peak.
     */
    private static long exchange(ReassemblyTable table, UnsafeBuffer receive, int keys, int pairs) {
        long checksum = 0;
        for (int done = 0; done < pairs; done += keys) {
            final boolean payloadFirst = (done / keys & 1) == 0;
            for (int k = 0; k < keys; k++) {
                checksum += payloadFirst ? table.onPayload(k >> 4, k & 1, k >> 1 & 7)
                    : table.onEnvelope(k >> 4, k & 1, k >> 1 & 7, receive, k, 24 + k % 64);
            }
            for (int k = 0; k < keys; k++) {
                checksum += payloadFirst ? table.onEnvelope(k >> 4, k & 1, k >> 1 & 7, receive, k, 24 + k % 64)
                    : table.onPayload(k >> 4, k & 1, k >> 1 & 7) + table.storedEnvelope().getByte(0);
            }
        }
        return checksum;
    }

    @Test
    void growsPastItsCapacityKeepingEveryStoredEnvelope() {
        final ReassemblyTable table = new ReassemblyTable(3, 16);
        assertEquals(4, table.capacity(), "rounded up to a power of two");
        final UnsafeBuffer receive = new UnsafeBuffer(new byte[16]);
        for (int source = 0; source < 100; source++) {
            receive.putInt(0, source * 1000);
            assertEquals(ReassemblyTable.STORED, table.onEnvelope(source, 0, 1, receive, 0, 4));
        }
        assertEquals(100, table.size());
        assertEquals(128, table.capacity());
        for (int source = 99; source >= 0; source--) {
            assertEquals(ReassemblyTable.COMPLETE, table.onPayload(source, 0, 1));
            assertEquals(4, table.storedEnvelopeLength());
            assertEquals(source * 1000, table.storedEnvelope().getInt(0));
        }
        assertEquals(0, table.size());
    }

    @Test
    void misuseThrowsNamingTheValue() {
        final ReassemblyTable table = new ReassemblyTable(4, 16);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[32]);
        final IllegalArgumentException key = assertThrows(IllegalArgumentException.class,
            () -> table.onPayload(-1, 0, 0));
        assertTrue(key.getMessage().contains("source -1"), key.getMessage());
        assertThrows(IllegalArgumentException.class, () -> table.onPayload(0, 2, 0));
        assertThrows(IllegalArgumentException.class, () -> table.onEnvelope(0, 0, -1, frame, 0, 8));
        final IndexOutOfBoundsException outside = assertThrows(IndexOutOfBoundsException.class,
            () -> table.onEnvelope(0, 0, 0, frame, 20, 16));
        assertTrue(outside.getMessage().contains("at 20 of 16 bytes"), outside.getMessage());
        assertEquals(0, table.size());
        final IllegalArgumentException slab = assertThrows(IllegalArgumentException.class,
            () -> new ReassemblyTable(4, 0));
        assertTrue(slab.getMessage().contains("up to 0 bytes"), slab.getMessage());
        final IllegalArgumentException capacity = assertThrows(IllegalArgumentException.class,
            () -> new ReassemblyTable(0, 16));
        assertTrue(capacity.getMessage().contains("initial capacity 0"), capacity.getMessage());
    }
}
